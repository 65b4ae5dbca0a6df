/**
 * `vserver set` / `vnode set`: change keys of one environment of a configuration, checked the way `start` checks it
 * before anything is saved (docs/cli.md "Changing a configuration").
 */
import { readFileSync, writeFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { CliError } from '../exit-codes.js';
import { setKey } from './store.js';

export interface Assignment {
  key: string;
  value: unknown;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

/** Parses `key.sub=value`; the value is read as YAML (`5000` is a number, `true` a boolean, `[a, b]` a list). */
export function parseAssignment(text: string): Assignment {
  const eq = text.indexOf('=');
  const key = eq > 0 ? text.slice(0, eq) : '';
  if (!KEY.test(key))
    throw new CliError(
      'usage',
      `expected KEY=VALUE (e.g. port=7601 or encryption.enabled=true), got '${text}'`,
    );
  const source = text.slice(eq + 1);
  let value: unknown;
  try {
    value = source === '' ? null : yaml.load(source);
  } catch (error) {
    throw new CliError(
      'usage',
      `${key}: the value is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  return { key, value: value === undefined ? null : value };
}

/**
 * Applies the assignments, then runs `check` on the result; when it throws, the file is put back as it was and the
 * error (naming the key and file) is passed on.
 */
export function setKeys(
  file: string,
  environment: string,
  assignments: readonly Assignment[],
  check: () => void,
): void {
  if (assignments.length === 0)
    throw new CliError('usage', 'give at least one KEY=VALUE, e.g. server_url=http://host.docker.internal');
  const before = readFileSync(file);
  try {
    for (const a of assignments) setKey(file, environment, a.key, a.value);
    check();
  } catch (error) {
    writeFileSync(file, before, { mode: 0o600 });
    throw error;
  }
}
