import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { LoadedServerConfig } from './load.js';

/** The data directory: `directories.data` (relative to the configuration file), else `$XDG_DATA_HOME/federa/server/<name>`. */
export function serverDataDir(loaded: LoadedServerConfig, env: NodeJS.ProcessEnv): string {
  const configured = loaded.config.directories?.data;
  if (configured) return isAbsolute(configured) ? configured : resolve(dirname(loaded.file), configured);
  const base =
    env.XDG_DATA_HOME && env.XDG_DATA_HOME !== ''
      ? env.XDG_DATA_HOME
      : join(env.HOME ?? homedir(), '.local', 'share');
  return join(base, 'federa', 'server', loaded.name);
}
