/** `vnode-local` leaves through the one exit-code table (docs/cli.md, "Exit codes"), run as the real program. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CODES } from '@federa/common';
import { describe, expect, it } from 'vitest';

const VNODE_LOCAL = join(import.meta.dirname, '../../dist/bin/vnode-local.js');
const run = (...args: string[]) => spawnSync(process.execPath, [VNODE_LOCAL, ...args], { encoding: 'utf8' });

describe('vnode-local exit codes', () => {
  it('ends a wrong command line with the usage code', () => {
    const unknown = run('start', '--frobnicate');
    expect(unknown.status).toBe(EXIT_CODES.usage.code);
    expect(unknown.stderr).toMatch(/unknown option '--frobnicate'|required option/);
    expect(run('start', '-c', 'x.yaml', '--dockerized', '--non-dockerized').status).toBe(
      EXIT_CODES.usage.code,
    );
    expect(run('--help').status).toBe(EXIT_CODES.ok.code);
  });

  it('ends a broken configuration with the configuration code, naming the file and the key', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vnode-exit-')), 'lab.yaml');
    writeFileSync(file, 'application:\n  api_key: k\n  server_url: http://127.0.0.1\n  port: five\n');
    const broken = run('start', '-c', file);
    expect(broken.status).toBe(3);
    expect(broken.stderr).toContain(file);
    expect(broken.stderr).toMatch(/port/);
  });
});
