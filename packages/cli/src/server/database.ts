/**
 * Where a server's database is, seen from the host and from the container (docs/cli.md#vserver-start):
 * a SQLite file's folder is mounted at /mnt/database; other databases must be reachable from the container.
 */
import { basename, dirname, isAbsolute, resolve } from 'node:path';

export type DatabasePlacement =
  | { kind: 'sqlite-file'; hostFile: string; hostDir: string; containerUri: string }
  | { kind: 'memory'; containerUri: string }
  | { kind: 'external'; containerUri: string; localHost: boolean };

export const CONTAINER_DB_DIR = '/mnt/database';

export function placeDatabase(uri: string, dataDir: string): DatabasePlacement {
  if (/^sqlite:\/\/(\/)?:memory:$/.test(uri) || uri === 'sqlite://')
    return { kind: 'memory', containerUri: uri };
  const sqlite = /^sqlite:\/\/\/(.*)$/.exec(uri);
  if (sqlite) {
    const path = sqlite[1] ?? '';
    const hostFile = isAbsolute(path) ? path : resolve(dataDir, path);
    return {
      kind: 'sqlite-file',
      hostFile,
      hostDir: dirname(hostFile),
      containerUri: `sqlite:///${CONTAINER_DB_DIR}/${basename(hostFile)}`,
    };
  }
  let localHost = false;
  try {
    localHost = ['localhost', '127.0.0.1', '::1', '[::1]'].includes(new URL(uri).hostname);
  } catch {
    /* not a URL: the server's validation reports it */
  }
  return { kind: 'external', containerUri: uri, localHost };
}
