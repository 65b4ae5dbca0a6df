/** Temp XDG folders and unique names for the CLI's tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** The XDG base-directory variables the CLI honours. */
export type XdgVariable =
  'XDG_CONFIG_HOME' | 'XDG_DATA_HOME' | 'XDG_CACHE_HOME' | 'XDG_CONFIG_DIRS' | 'XDG_DATA_DIRS';

export interface TestDirs {
  readonly root: string;
  readonly env: Readonly<Record<XdgVariable, string>>;
  cleanup(): void;
}

/** Points every XDG variable at a fresh temp dir (user and system scopes alike). */
export function tempXdg(): TestDirs {
  const root = mkdtempSync(join(tmpdir(), 'federa-cli-'));
  const env = {
    XDG_CONFIG_HOME: join(root, 'user-config'),
    XDG_DATA_HOME: join(root, 'user-data'),
    XDG_CACHE_HOME: join(root, 'user-cache'),
    XDG_CONFIG_DIRS: join(root, 'system-config'),
    XDG_DATA_DIRS: join(root, 'system-data'),
  };
  return { root, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Applies the dirs to this (forked) test process's environment. */
export function useXdg(dirs: TestDirs): void {
  Object.assign(process.env, dirs.env);
}

export const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(3).toString('hex')}`;
