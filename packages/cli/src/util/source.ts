/** The source checkout `--develop` mounts into a container. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../exit-codes.js';

/** The monorepo this CLI runs from (the folder whose package.json has `workspaces`). */
export function ownCheckout(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (dirname(dir) !== dir) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { workspaces?: unknown }).workspaces) return dir;
      } catch {
        /* keep looking */
      }
    }
    dir = dirname(dir);
  }
  return undefined;
}

/** `--develop` with a path, or `true` for this CLI's own checkout. */
export function sourceCheckout(value: string | true | undefined): string {
  if (typeof value === 'string') return resolve(value);
  const own = ownCheckout();
  if (!own)
    throw new CliError('usage', '--develop: this CLI does not run from a checkout; give the path of one');
  return own;
}
