#!/usr/bin/env node
// Launcher for `vstore`: it exists before the build, so npm links it at install time; the program is the compiled
// dist/bin/vstore.js (run `npx tsc --build` first).
import('../dist/bin/vstore.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bin/vstore.js')) {
    console.error('vstore is not built yet: run `npx tsc --build` in the repository first.');
    process.exit(1);
  }
  throw error;
});
