/**
 * An upload the server refuses before its body has all gone (a full result store answers 507 after reading part of
 * it, docs/large-results.md): the node reads that answer, rather than the cut connection under the rest of the body,
 * and stops sending. A real HTTP server on port 0, in the two ways a server may end such a connection.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RestClient } from './rest-client.js';

const FULL = { code: 'result_store_full', msg: 'The result store is full.' };
let server: Server;
let port: number;
/** Bytes the server received per request. */
const received: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const at = received.push(0) - 1;
    let answered = false;
    req.on('data', (chunk: Buffer) => {
      received[at] = (received[at] ?? 0) + chunk.length;
      if (answered || (received[at] ?? 0) < 1024 * 1024) return;
      answered = true;
      // `/close`: the connection is closed with the answer, as a server that reads no further does.
      const close = req.url?.endsWith('/close') === true;
      res.writeHead(507, { 'content-type': 'application/json', ...(close ? { connection: 'close' } : {}) });
      res.end(JSON.stringify(FULL));
      if (close) req.pause();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Uploads 256 MiB, more than any connection holds on its way, and gives the answer. */
async function upload(path: string) {
  const rest = new RestClient({
    apiBase: `http://127.0.0.1:${port}/api`,
    apiKey: 'unused',
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    maxBackoffMs: 50,
  });
  const piece = Buffer.alloc(1024 * 1024, 0x41);
  let opened = 0;
  const answer = await rest.request('PUT', path, {
    upload: {
      open: () => {
        opened += 1;
        return Readable.from(
          (function* () {
            for (let i = 0; i < 256; i++) yield piece;
          })(),
        );
      },
      headers: { 'x-federa-sha256': 'x', 'content-length': String(256 * piece.length) },
    },
    allowError: true,
  });
  return { answer, opened };
}

describe('an upload refused before its body has gone', () => {
  it('gets the 507 from a server that reads on, and sends no more than a little of the rest', async () => {
    received.length = 0;
    const { answer, opened } = await upload('/result/1/output');
    expect(answer).toEqual({ status: 507, body: FULL });
    expect(opened).toBe(1);
    expect(received[0]).toBeLessThan(64 * 1024 * 1024);
  }, 20_000);

  it('gets the 507 from a server that closes the connection with its answer', async () => {
    received.length = 0;
    const { answer, opened } = await upload('/result/1/close');
    expect(answer).toEqual({ status: 507, body: FULL });
    expect(opened).toBe(1);
  }, 20_000);
});
