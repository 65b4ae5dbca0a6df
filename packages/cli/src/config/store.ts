/**
 * Configuration files on disk: finding them (config folder of a scope, then the working directory), listing them,
 * and writing one environment into a file that always holds all five (docs/configuration.md#the-file).
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import yaml from 'js-yaml';
import { ConfigError, ENVIRONMENTS, instanceName } from '@federa/common';
import { CliError } from '../exit-codes.js';
import { type Env, type InstanceType, type Scope, configFilePath, typeDirs } from '../paths.js';

export const NAME_PATTERN = /^[a-zA-Z0-9_.-]+$/;

/** Spaces typed in a wizard become `-`; anything else outside the pattern is refused. */
export function normaliseName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, '-');
  if (!NAME_PATTERN.test(name)) {
    throw new CliError(
      'usage',
      `'${raw}' is not a valid name: use letters, digits, '_', '.' and '-' only (it becomes part of Docker object names)`,
    );
  }
  return name;
}

export interface ConfigDocument {
  application: Record<string, unknown>;
  environments: Record<string, Record<string, unknown>>;
}

export function emptyDocument(): ConfigDocument {
  return { application: {}, environments: { prod: {}, acc: {}, test: {}, dev: {} } };
}

export function readDocument(file: string): ConfigDocument {
  if (!existsSync(file)) return emptyDocument();
  let doc: unknown;
  try {
    doc = yaml.load(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(file, `not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const top = (doc && typeof doc === 'object' && !Array.isArray(doc) ? doc : {}) as Record<string, unknown>;
  const out = emptyDocument();
  const app = top.application;
  if (app && typeof app === 'object' && !Array.isArray(app)) out.application = app as Record<string, unknown>;
  const envs = top.environments;
  if (envs && typeof envs === 'object' && !Array.isArray(envs)) {
    for (const [k, v] of Object.entries(envs as Record<string, unknown>)) {
      out.environments[k] =
        v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    }
  }
  return out;
}

export function environmentOf(doc: ConfigDocument, environment: string): Record<string, unknown> {
  return environment === 'application' ? doc.application : (doc.environments[environment] ?? {});
}

/** Environments of a file that hold anything. */
export function environmentsIn(file: string): string[] {
  try {
    const doc = readDocument(file);
    return ENVIRONMENTS.filter((e) => Object.keys(environmentOf(doc, e)).length > 0);
  } catch {
    return [];
  }
}

export function writeDocument(file: string, doc: ConfigDocument): void {
  mkdirSync(dirname(file), { recursive: true });
  const text = yaml.dump(
    { application: doc.application, environments: doc.environments },
    { lineWidth: 120, noRefs: true },
  );
  writeFileSync(file, text, { mode: 0o600 });
}

/** Writes (replaces) one environment, keeping the others. */
export function writeEnvironment(file: string, environment: string, values: Record<string, unknown>): void {
  const doc = readDocument(file);
  if (environment === 'application') doc.application = values;
  else doc.environments[environment] = values;
  writeDocument(file, doc);
}

/** Sets one (dotted) key of an environment. */
export function setKey(file: string, environment: string, path: string, value: unknown): void {
  const doc = readDocument(file);
  let target = environmentOf(doc, environment);
  if (environment !== 'application') doc.environments[environment] = target;
  else doc.application = target;
  const parts = path.split('.');
  for (const part of parts.slice(0, -1)) {
    const next = target[part];
    if (!next || typeof next !== 'object' || Array.isArray(next)) target[part] = {};
    target = target[part] as Record<string, unknown>;
  }
  target[parts[parts.length - 1] as string] = value;
  writeDocument(file, doc);
}

/** Throws a CliError unless the folder (or its nearest existing parent) can be written. */
export function assertWritable(folder: string): void {
  let probe = folder;
  while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
  try {
    accessSync(probe, constants.W_OK);
  } catch {
    throw new CliError(
      'config',
      `cannot write to ${folder} (${probe} is not writable); run as a user who may, or choose the other scope (--user/--system)`,
    );
  }
}

export interface InstanceRef {
  readonly type: InstanceType;
  readonly name: string;
  readonly scope: Scope;
  readonly file: string;
}

/** Every configuration file of a type in both scopes. */
export function listInstances(
  type: InstanceType,
  env: Env = process.env,
): (InstanceRef & { environments: string[] })[] {
  const out: (InstanceRef & { environments: string[] })[] = [];
  for (const scope of ['user', 'system'] as const) {
    const dir = typeDirs(type, scope, env).config;
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f));
    } catch {
      continue;
    }
    for (const f of files.sort()) {
      const file = join(dir, f);
      out.push({ type, scope, name: instanceName(file), file, environments: environmentsIn(file) });
    }
  }
  return out;
}

/** Finds the file of `name`: the scope's config folder, then the working directory. */
export function findConfigFile(
  type: InstanceType,
  name: string,
  scope: Scope,
  options: { env?: Env; cwd?: string } = {},
): string | undefined {
  const inFolder = configFilePath(type, scope, name, options.env);
  if (existsSync(inFolder)) return inFolder;
  const cwd = options.cwd ?? process.cwd();
  for (const candidate of [join(cwd, `${name}.yaml`), join(cwd, `${name}.yml`)]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export interface SelectOptions {
  readonly name?: string;
  readonly config?: string;
  readonly scope: Scope;
  readonly env?: Env;
  readonly cwd?: string;
}

/**
 * The instance a command is about: `--config <file>` (the name is its stem), else `--name` looked up in the
 * scope, else the only configuration of that scope. `pick` chooses among several (the interactive list).
 */
export async function selectInstance(
  type: InstanceType,
  options: SelectOptions,
  pick?: (choices: InstanceRef[]) => Promise<InstanceRef>,
): Promise<InstanceRef> {
  if (options.config) {
    const file = resolve(options.cwd ?? process.cwd(), options.config);
    if (!existsSync(file)) throw new CliError('config', `the configuration file ${file} does not exist`);
    return { type, name: instanceName(file), scope: options.scope, file };
  }
  const vnodeOrVserver = type === 'node' ? 'vnode' : 'vserver';
  if (options.name) {
    const file = findConfigFile(type, options.name, options.scope, options);
    if (!file) {
      throw new CliError(
        'config',
        `no ${type} configuration named '${options.name}' in ${typeDirs(type, options.scope, options.env).config} ` +
          `(--${options.scope}) or the working directory; create one with '${vnodeOrVserver} new -n ${options.name}' ` +
          `or look with '${vnodeOrVserver} list'`,
      );
    }
    return { type, name: options.name, scope: options.scope, file };
  }
  const candidates = listInstances(type, options.env).filter((i) => i.scope === options.scope);
  if (candidates.length === 0) {
    throw new CliError(
      'config',
      `no ${type} configurations in ${typeDirs(type, options.scope, options.env).config} (--${options.scope}); ` +
        `create one with '${vnodeOrVserver} new'`,
    );
  }
  if (candidates.length === 1) return candidates[0] as InstanceRef;
  if (!pick) {
    throw new CliError(
      'usage',
      `several ${type} configurations exist (${candidates.map((c) => c.name).join(', ')}); choose one with -n/--name`,
    );
  }
  return pick(candidates);
}
