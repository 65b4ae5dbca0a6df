/**
 * A streamed upload (docs/large-results.md) through the node's REST client: a connection cut in the middle is tried
 * again with the body read afresh, and the server gets every byte once. A real HTTP server on port 0.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RestClient } from './rest-client.js';

let server: Server;
let port: number;
const received: { bytes: number; sha256: string; cut: boolean }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const hash = createHash('sha256');
    let bytes = 0;
    const cut = received.length === 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
      // The first attempt is cut after 1 MiB, as a dropped link would.
      if (cut && bytes > 1024 * 1024) req.socket.destroy();
    });
    req.on('end', () => {
      received.push({ bytes, sha256: hash.digest('hex'), cut: false });
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ size: bytes }));
    });
    req.on('close', () => {
      if (!req.complete) received.push({ bytes, sha256: '', cut: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('a streamed upload', () => {
  it('is sent again whole after a cut, the body opened afresh', async () => {
    const data = randomBytes(4 * 1024 * 1024);
    let opened = 0;
    const rest = new RestClient({
      apiBase: `http://127.0.0.1:${port}/api`,
      apiKey: 'unused',
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      maxBackoffMs: 50,
    });
    const answer = await rest.request('PUT', '/result/1/output', {
      upload: {
        open: () => {
          opened += 1;
          return Readable.from([data.subarray(0, 2 * 1024 * 1024), data.subarray(2 * 1024 * 1024)]);
        },
        headers: { 'x-federa-sha256': 'x' },
      },
    });
    expect(answer).toEqual({ status: 201, body: { size: data.length } });
    expect(opened).toBe(2);
    expect(received.map((r) => r.cut)).toEqual([true, false]);
    expect(received[1]).toMatchObject({
      bytes: data.length,
      sha256: createHash('sha256').update(data).digest('hex'),
    });
  });
});
