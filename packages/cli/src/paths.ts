/**
 * Where configurations, data and logs live (docs/cli.md#where-files-live), the XDG base directories on Linux.
 * Every function takes the process environment as a parameter so tests can point XDG_* at temp dirs.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const APP_NAME = 'federa';

export type InstanceType = 'node' | 'server';
export type Scope = 'user' | 'system';

export type Env = Readonly<Record<string, string | undefined>>;

const firstOf = (list: string | undefined, fallback: string): string =>
  (list ?? '')
    .split(':')
    .map((s) => s.trim())
    .find((s) => s.length > 0) ?? fallback;

const nonEmpty = (value: string | undefined): string | undefined =>
  value !== undefined && value.trim() !== '' ? value : undefined;

/** The base directories of one scope, before the application and instance type are added. */
export interface BaseDirs {
  readonly config: string;
  readonly data: string;
  readonly cache: string;
}

export function baseDirs(scope: Scope, env: Env = process.env): BaseDirs {
  if (scope === 'user') {
    const home = nonEmpty(env.HOME) ?? homedir();
    return {
      config: nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, '.config'),
      data: nonEmpty(env.XDG_DATA_HOME) ?? join(home, '.local', 'share'),
      cache: nonEmpty(env.XDG_CACHE_HOME) ?? join(home, '.cache'),
    };
  }
  const data = firstOf(env.XDG_DATA_DIRS, '/usr/local/share');
  return { config: firstOf(env.XDG_CONFIG_DIRS, '/etc/xdg'), data, cache: data };
}

/** The folders of one instance type in one scope. */
export interface TypeDirs {
  /** `<name>.yaml` files. */
  readonly config: string;
  /** Per-type data folder (private keys written by `vnode create-private-key`). */
  readonly data: string;
  /** Log folder. */
  readonly log: string;
}

export function typeDirs(type: InstanceType, scope: Scope, env: Env = process.env): TypeDirs {
  const base = baseDirs(scope, env);
  return {
    config: join(base.config, APP_NAME, type),
    data: join(base.data, APP_NAME, type),
    log: scope === 'user' ? join(base.cache, APP_NAME, 'log', type) : join(base.data, APP_NAME, type),
  };
}

/** The data folder of one instance. */
export const instanceDataDir = (
  type: InstanceType,
  scope: Scope,
  name: string,
  env: Env = process.env,
): string => join(typeDirs(type, scope, env).data, name);

/** The configuration file of an instance in its scope's config folder. */
export const configFilePath = (
  type: InstanceType,
  scope: Scope,
  name: string,
  env: Env = process.env,
): string => join(typeDirs(type, scope, env).config, `${name}.yaml`);

/** Default log file name: `<name>-<environment>-<scope>.log` (docs/cli.md#where-files-live). */
export const defaultLogFileName = (name: string, environment: string, scope: Scope): string =>
  `${name}-${environment}-${scope}.log`;
