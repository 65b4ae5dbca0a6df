#!/usr/bin/env node
// Launcher for `vnode`: it exists before the build, so npm links it at install time; the program is the compiled
// dist/bin/vnode.js (run `npx tsc --build` first).
import('../dist/bin/vnode.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bin/vnode.js')) {
    console.error('vnode is not built yet: run `npx tsc --build` in the repository first.');
    process.exit(1);
  }
  throw error;
});
