import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import yaml from 'js-yaml';
import type { TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The environments a configuration file can hold (docs/configuration.md#the-file). */
export const ENVIRONMENTS = ['application', 'prod', 'acc', 'test', 'dev'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** A configuration problem, reported before anything starts: names the key, the file and what was expected. */
export class ConfigError extends Error {
  readonly file: string;
  readonly key: string | undefined;
  constructor(file: string, message: string, key?: string) {
    super(key !== undefined ? `${file}: key '${key}': ${message}` : `${file}: ${message}`);
    this.name = 'ConfigError';
    this.file = file;
    this.key = key;
  }
}

/** The instance name of a configuration file: its stem. */
export const instanceName = (file: string): string => basename(file).replace(/\.ya?ml$/i, '');

/** Reads one environment of a configuration file: `application` at the top, the others under `environments`. */
export function readEnvironment(file: string, environment: string): Record<string, unknown> {
  if (!(ENVIRONMENTS as readonly string[]).includes(environment)) {
    throw new ConfigError(
      file,
      `unknown environment '${environment}'; expected one of ${ENVIRONMENTS.join(', ')}`,
    );
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      file,
      `cannot read the configuration file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (error) {
    throw new ConfigError(file, `not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) doc = {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new ConfigError(file, 'expected a mapping at the top level');
  const top = doc as Record<string, unknown>;
  let section: unknown;
  if (environment === 'application') {
    section = top.application;
  } else {
    const envs = top.environments;
    if (envs !== undefined && envs !== null && (typeof envs !== 'object' || Array.isArray(envs))) {
      throw new ConfigError(file, 'expected a mapping of environments', 'environments');
    }
    section = (envs as Record<string, unknown> | undefined | null)?.[environment];
  }
  if (section === undefined || section === null) section = {};
  if (typeof section !== 'object' || Array.isArray(section)) {
    throw new ConfigError(
      file,
      'expected a mapping',
      environment === 'application' ? 'application' : `environments.${environment}`,
    );
  }
  if (Object.keys(section as object).length === 0) {
    throw new ConfigError(file, `the environment '${environment}' is empty or missing`);
  }
  return section as Record<string, unknown>;
}

const describeExpected = (schema: TSchema | undefined): string => {
  if (!schema) return 'a valid value';
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.anyOf))
    return `one of ${(s.anyOf as Record<string, unknown>[]).map((a) => JSON.stringify(a.const)).join(', ')}`;
  const parts: string[] = [];
  if (typeof s.type === 'string') parts.push(s.type === 'integer' ? 'an integer' : `a ${s.type}`);
  if (s.minimum !== undefined) parts.push(`>= ${String(s.minimum)}`);
  if (s.maximum !== undefined) parts.push(`<= ${String(s.maximum)}`);
  if (s.minLength !== undefined) parts.push(`at least ${String(s.minLength)} characters`);
  if (s.pattern !== undefined) parts.push(`matching ${String(s.pattern)}`);
  return parts.join(', ') || 'a valid value';
};

/**
 * The first problem of `value`. A value that is not null under an optional section (`T | null`) is checked against
 * `T` itself, so that the problem named is the key inside it, not the whole section.
 */
function firstError(
  schema: TSchema,
  value: unknown,
): { path: string; message: string; schema: TSchema; value: unknown } | undefined {
  const first = Value.Errors(schema, value).First();
  if (!first) return undefined;
  const members = (first.schema as { anyOf?: TSchema[] }).anyOf;
  if (members && first.value !== null && first.value !== undefined) {
    const notNull = members.filter((m) => (m as { type?: unknown }).type !== 'null');
    if (notNull.length === 1 && notNull.length < members.length) {
      const inner = firstError(notNull[0]!, first.value);
      if (inner) return { ...inner, path: `${first.path}${inner.path}` };
    }
  }
  return first;
}

/**
 * Applies defaults and validates `raw` against `schema`. The first problem is thrown as a {@link ConfigError}
 * naming the key (dotted path), the file and what was expected.
 */
export function validateConfig<S extends TSchema>(schema: S, raw: unknown, file: string): Static<S> {
  const value = Value.Default(schema, structuredClone(raw));
  const first = firstError(schema, value);
  if (first) {
    const key = first.path.replace(/^\//, '').replace(/\//g, '.') || undefined;
    const missing = first.message.toLowerCase().includes('required');
    const msg = missing
      ? `is required (${describeExpected(first.schema)})`
      : first.message.startsWith('Unexpected property')
        ? 'is not a known configuration key'
        : `expected ${describeExpected(first.schema)}, got ${JSON.stringify(first.value)}`;
    throw new ConfigError(file, msg, key);
  }
  return value as Static<S>;
}
