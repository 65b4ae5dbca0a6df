// Builds the web UI into dist/ (served by the server, see docs/ui.md). @federa/client and @federa/common are taken
// through the `browser` condition of their package.json `exports` (their built browser entries, `tsc --build`).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  base: './',
  root: here('.'),
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: here('dist'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
  },
});
