/**
 * Running a documentation example the way its reader does: `node script.mjs` or `/usr/bin/python3 script.py` in a
 * folder of their own, or the blocks of a page pasted one after the other into one Python session.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { DocBlock } from './doc-blocks.js';

/** The repository's root. */
export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

export interface Ran {
  readonly out: string;
  readonly err: string;
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: Record<string, string>;
  readonly args?: readonly string[];
  /** Called with each line of standard output; may answer on standard input. */
  readonly onLine?: (line: string, answer: (text: string) => void) => void | Promise<void>;
  readonly timeoutMs?: number;
}

/** Runs a command; rejects with its output when it exits other than 0 or takes too long. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<Ran> {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let pending = '';
  const answer = (text: string): void => {
    child.stdin.write(text);
  };
  let chain: Promise<void> = Promise.resolve();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) chain = chain.then(() => options.onLine?.(line, answer));
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  if (!options.onLine) child.stdin.end();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      chain.then(
        () =>
          code === 0
            ? resolve({ out, err })
            : reject(
                new Error(
                  `${command} ${args.join(' ')} ended with ${code ?? signal}\n--- stdout\n${out}\n--- stderr\n${err}`,
                ),
              ),
        (error: unknown) => {
          child.kill('SIGKILL');
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    chain.catch(() => child.kill('SIGKILL'));
  });
}

/**
 * A reader's own project folder with the SDK installed as `npm install <checkout>/packages/client` installs it
 * (a link to the built package).
 */
export function readerProject(dir: string): string {
  mkdirSync(join(dir, 'node_modules', '@federa'), { recursive: true });
  symlinkSync(join(REPO, 'packages', 'client'), join(dir, 'node_modules', '@federa', 'client'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "name": "my-study", "private": true, "type": "module" }\n');
  return dir;
}

/** Python as the docs run it: Debian's /usr/bin/python3 with the client's sources on PYTHONPATH. */
export const python = (script: string, options: RunOptions): Promise<Ran> =>
  run('/usr/bin/python3', [script, ...(options.args ?? [])], {
    ...options,
    env: { PYTHONPATH: join(REPO, 'clients', 'python'), ...options.env },
  });

/** `node script.mjs`. */
export const node = (script: string, options: RunOptions): Promise<Ran> =>
  run(process.execPath, [script, ...(options.args ?? [])], options);

/** A placeholder of an example and what the test puts in its place. */
export type Substitution = readonly [placeholder: string, value: string];

/** The block's code with each placeholder replaced; a placeholder the code does not contain is a test error. */
export function substitute(block: DocBlock, substitutions: readonly Substitution[]): string {
  let code = block.code;
  for (const [placeholder, value] of substitutions) {
    if (!code.includes(placeholder))
      throw new Error(`${block.file}:${block.line} no longer contains the placeholder ${placeholder}`);
    code = code.replaceAll(placeholder, value);
  }
  return code;
}
