/**
 * A streamed upload over a slow link (docs/large-results.md): it may last longer than the node's request time limit
 * while bytes keep moving; a connection on which nothing moves is given up and the upload tried again.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RestClient } from './rest-client.js';

let server: Server;
let port: number;
let attempts = 0;
let stallFirst = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    attempts += 1;
    const stall = stallFirst && attempts === 1;
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    // A stalled server reads the body and never answers.
    req.on('end', () => {
      if (!stall)
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ size: bytes }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = () =>
  new RestClient({
    apiBase: `http://127.0.0.1:${port}/api`,
    apiKey: 'unused',
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    maxBackoffMs: 50,
    requestTimeoutMs: 300,
  });

/** `count` pieces of 16 KiB, `gapMs` apart. */
async function* slow(count: number, gapMs: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < count; i++) {
    yield randomBytes(16 * 1024);
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
}

describe('a streamed upload over a slow link', () => {
  it('lasts longer than requestTimeoutMs while bytes keep moving', async () => {
    attempts = 0;
    stallFirst = false;
    const started = Date.now();
    const answer = await client().request('PUT', '/result/1/output', {
      upload: { open: () => Readable.from(slow(10, 100)), headers: { 'x-federa-sha256': 'x' } },
    });
    expect(Date.now() - started).toBeGreaterThan(900);
    expect(answer).toEqual({ status: 201, body: { size: 10 * 16 * 1024 } });
    expect(attempts).toBe(1);
  });

  it('gives up a connection on which nothing moves and sends the upload again', async () => {
    attempts = 0;
    stallFirst = true;
    const answer = await client().request('PUT', '/result/1/output', {
      upload: { open: () => Readable.from([randomBytes(1000)]), headers: { 'x-federa-sha256': 'x' } },
    });
    expect(answer).toEqual({ status: 201, body: { size: 1000 } });
    expect(attempts).toBe(2);
  });
});
