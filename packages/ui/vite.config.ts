// Builds the web UI into dist/ (served by the server, see docs/ui.md). The SDK (@federa/client) is compiled
// from its sources; @federa/common is replaced by the browser-safe part of it (src/sdk/common-browser.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  base: './',
  root: here('.'),
  esbuild: { jsx: 'automatic' },
  resolve: {
    alias: {
      '@federa/client': here('../client/src/browser.ts'),
      '@federa/common': here('src/sdk/common-browser.ts'),
    },
  },
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
  },
});
