#!/usr/bin/env node
// Launcher for `vserver`: it exists before the build, so npm links it at install time; the program is the compiled
// dist/bin/vserver.js (run `npx tsc --build` first).
import('../dist/bin/vserver.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bin/vserver.js')) {
    console.error('vserver is not built yet: run `npx tsc --build` in the repository first.');
    process.exit(1);
  }
  throw error;
});
