import { existsSync } from 'node:fs';
import { ENVIRONMENTS } from '@federa/common';
import { CliError } from '../exit-codes.js';
import { type Env, type Scope, configFilePath, typeDirs } from '../paths.js';
import type { Asker } from '../util/asker.js';
import { assertWritable, environmentsIn, normaliseName } from './store.js';

/** Validation of a wizard answer that must not be empty. */
export const nonEmpty = (s: string): true | string => (s.trim() !== '' ? true : 'must not be empty');

/**
 * The first questions of `vserver new` and `vnode new`: the configuration's name and environment. Refuses a
 * (name, environment) that already exists and a configuration folder that cannot be written, before asking more.
 */
export async function askNameAndEnvironment(
  type: 'server' | 'node',
  options: { name?: string | undefined; environment?: string | undefined; scope: Scope },
  asker: Asker,
  defaultEnvironment: string,
  env: Env,
): Promise<{ name: string; environment: string; file: string }> {
  const name = normaliseName(
    await asker.text(options.name, {
      message: `Name of the ${type} configuration`,
      flag: '--name',
      validate: nonEmpty,
    }),
  );
  const environment = await asker.choose(options.environment, {
    message: 'Environment',
    flag: '--environment',
    choices: ENVIRONMENTS,
    default: defaultEnvironment,
  });
  const file = configFilePath(type, options.scope, name, env);
  if (existsSync(file) && environmentsIn(file).includes(environment)) {
    throw new CliError(
      'state',
      `the ${type} configuration '${name}' already has an environment '${environment}' (${file}). ` +
        `Change a setting with: ${type === 'node' ? 'vnode' : 'vserver'} set -n ${name}${options.scope === 'system' ? ' --system' : ' --user'} -e ${environment} <key>=<value> ` +
        `(e.g. ${type === 'node' ? 'server_url=http://host.docker.internal' : 'port=7601'}), or write another environment with -e`,
    );
  }
  assertWritable(typeDirs(type, options.scope, env).config);
  return { name, environment, file };
}
