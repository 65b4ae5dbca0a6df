import { readFileSync } from 'node:fs';

/** The package version (package.json next to src/ and dist/). */
export const NODE_VERSION: string = (() => {
  try {
    return (
      JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    ).version;
  } catch {
    return '0.0.0';
  }
})();
