import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, storedFiles, type TestApp } from '@federa/testing';

/**
 * A full result store, as a node sees it: the node writes its output without waiting and reads the answer when
 * it comes; it must read the 507, not a connection cut under it (docs/reliability.md). The server answers before
 * reading a byte when the declared size cannot fit, keeps the request open when the disk fills midway, and reads
 * on for a moment after a refusal, so that a client still writing is not reset before it has read the answer.
 */
describe('a full result store', () => {
  let t: TestApp;
  let small: string;
  let base: string;
  beforeAll(async () => {
    small = await mkdtemp(join(tmpdir(), 'federa-result-output-full-'));
    // A real full disk: a 1 MiB tmpfs (the tests run as root on this project's machines, as Docker does).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]);
    t = await startTestApp({ config: { result_store: { type: 'folder', directory: small, max_mb: 64 } } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api`;
  });
  afterAll(async () => {
    await t?.close();
    execFileSync('umount', [small]);
    await rm(small, { recursive: true, force: true });
  });

  /** A run of a fresh task and its node's token. */
  async function run(): Promise<{ id: number; token: string }> {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const node = await t.fx.node(org, collab);
    const task = await t.fx.task(collab, [org]);
    return { id: task.resultIds[0] as number, token: await node.token() };
  }

  /**
   * Uploads `size` bytes as a node does: written in 64 KiB pieces as fast as the connection takes them, the answer
   * taken as soon as it comes. A connection cut before any answer (EPIPE, ECONNRESET) rejects.
   */
  function upload(
    r: { id: number; token: string },
    size: number,
    declare: boolean,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const piece = Buffer.alloc(64 * 1024, 0x41);
    const pieces = Math.ceil(size / piece.length);
    const sha = createHash('sha256');
    for (let i = 0; i < pieces; i++) sha.update(piece);
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${base}/result/${r.id}/output`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${r.token}`,
          'content-type': 'application/octet-stream',
          'x-federa-sha256': sha.digest('hex'),
          ...(declare ? { 'content-length': String(pieces * piece.length) } : {}),
        },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) });
          req.destroy();
        });
      });
      const body = (function* () {
        for (let i = 0; i < pieces; i++) yield piece;
      })();
      pipeline(Readable.from(body), req).catch((error: unknown) => reject(error as Error));
    });
  }

  it('answers 507 before reading a byte when the declared size does not fit, and the writing node reads it', async () => {
    const answer = await upload(await run(), 16 * 1024 * 1024, true);
    expect(answer.status).toBe(507);
    expect(answer.body.code).toBe('result_store_full');
    expect(JSON.stringify(answer.body)).not.toContain(small);
    expect(await storedFiles(small)).toEqual([]);
  });

  it('answers 507 without naming a path when the disk fills during the upload, and the writing node reads it', async () => {
    for (let i = 0; i < 3; i++) {
      const answer = await upload(await run(), 16 * 1024 * 1024, false);
      expect(answer.status).toBe(507);
      expect(answer.body.code).toBe('result_store_full');
      expect(JSON.stringify(answer.body)).not.toContain(small);
      expect(JSON.stringify(answer.body)).not.toMatch(/ENOSPC|\/tmp|\bat /);
      expect(await storedFiles(small)).toEqual([]);
    }
  });
});
