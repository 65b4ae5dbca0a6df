/**
 * The exit-file half of waiting on Podman (libpod-wait.ts), against a folder of the test's own: conmon's file is
 * taken when it holds an exit code, before or after the watch began, and nothing else is taken for one. The API's
 * half runs against real Podman in the conformance suite.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { exitDirectory, watchExitFile } from './libpod-wait.js';

const root = await mkdtemp(join(tmpdir(), 'libpod-wait-'));
afterAll(() => rm(root, { recursive: true, force: true }));
const ID = 'a'.repeat(64);
const pending = Symbol('pending');
const settled = <T>(p: Promise<T>, ms: number): Promise<T | typeof pending> =>
  Promise.race([p, new Promise<typeof pending>((r) => setTimeout(() => r(pending), ms))]);

describe('the exit file of a Podman container', () => {
  it('is found beside the API socket of a user service, and not where that folder is missing', async () => {
    await mkdir(join(root, 'run', 'libpod', 'tmp', 'exits'), { recursive: true });
    expect(await exitDirectory(join(root, 'run', 'podman', 'podman.sock'))).toBe(
      join(root, 'run', 'libpod', 'tmp', 'exits'),
    );
    expect(await exitDirectory(join(root, 'elsewhere', 'podman', 'podman.sock'))).toBeUndefined();
  });

  it('gives the exit code written after the watch began, and one written before it', async () => {
    const dir = await mkdtemp(join(root, 'exits-'));
    const signal = new AbortController().signal;
    const later = watchExitFile(dir, ID, signal);
    await writeFile(join(dir, 'b'.repeat(64)), '0');
    expect(await settled(later, 100)).toBe(pending);
    await writeFile(join(dir, ID), '137');
    expect(await settled(later, 2_000)).toBe(137);

    const other = 'c'.repeat(64);
    await writeFile(join(dir, other), '3');
    expect(await settled(watchExitFile(dir, other, signal), 2_000)).toBe(3);
  });

  it('takes nothing but an exit code from the file, and stops watching when aborted', async () => {
    const dir = await mkdtemp(join(root, 'exits-'));
    const stop = new AbortController();
    const watched = watchExitFile(dir, ID, stop.signal);
    await writeFile(join(dir, ID), 'not a number');
    expect(await settled(watched, 200)).toBe(pending);
    stop.abort();
    await writeFile(join(dir, ID), '0');
    expect(await settled(watched, 200)).toBe(pending);
  });
});
