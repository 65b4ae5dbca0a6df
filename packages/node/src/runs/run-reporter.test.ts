/**
 * The delivery of a report with a large output (docs/large-results.md) to a server without the large path (a vantage6
 * 3.x server): the output goes inline in the report, as 3.x, and nothing is lost. A real HTTP server on port 0.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DummyCryptor } from '@federa/common';

import { RestClient } from '../server-client/rest-client.js';
import { RunReporter } from './run-reporter.js';

let server: Server;
let dir: string;
const patches: Record<string, unknown>[] = [];
let uploadAnswer: { status: number; body: unknown };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-reporter-'));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'PATCH')
        patches.push(JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>);
      const answer = req.method === 'PUT' ? uploadAnswer : { status: 200, body: {} };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

function reporter(): RunReporter {
  const log = pino({ level: 'silent' });
  const signal = new AbortController().signal;
  const port = (server.address() as AddressInfo).port;
  const rest = new RestClient({
    apiBase: `http://127.0.0.1:${port}/api`,
    apiKey: 'k',
    log,
    signal,
    maxBackoffMs: 50,
  });
  return new RunReporter(rest, new DummyCryptor(), log, signal);
}

describe('a report with a large output', () => {
  it('goes inline to a server that has no upload of large outputs', async () => {
    const file = join(dir, 'output.sealed');
    await writeFile(file, 'aGVsbG8=');
    uploadAnswer = { status: 404, body: { msg: 'No such endpoint.', code: 'route_not_found' } };
    patches.length = 0;
    const report = {
      status: 'completed',
      log: 'ok',
      finished_at: '2026-11-24T05:00:00',
      result_stored: { sha256: 'a'.repeat(64), size: 8 },
      upload: file,
    };
    expect(await reporter().deliver(7, report)).toBe(true);
    expect(patches).toEqual([
      { status: 'completed', log: 'ok', finished_at: '2026-11-24T05:00:00', result: 'aGVsbG8=' },
    ]);
  });

  it('is named in the report once uploaded, and not reported when the server says the result is gone', async () => {
    const file = join(dir, 'output2.sealed');
    await writeFile(file, 'aGVsbG8=');
    const report = {
      status: 'completed',
      log: 'ok',
      finished_at: '2026-11-24T05:00:00',
      result_stored: { sha256: 'b'.repeat(64), size: 8 },
      upload: file,
    };
    uploadAnswer = { status: 201, body: { sha256: 'b'.repeat(64), size: 8 } };
    patches.length = 0;
    expect(await reporter().deliver(8, report)).toBe(true);
    expect(patches).toEqual([
      {
        status: 'completed',
        log: 'ok',
        finished_at: '2026-11-24T05:00:00',
        result_stored: report.result_stored,
      },
    ]);
    uploadAnswer = { status: 404, body: { msg: 'Result with id=9 not found', code: 'not_found' } };
    patches.length = 0;
    expect(await reporter().deliver(9, report)).toBe(false);
    expect(patches).toEqual([]);
  });
});
