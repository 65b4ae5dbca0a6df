import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@federa/testing';

// A request whose headers or body never arrive must not hold a connection forever (docs/security.md).

let dir: string;
let server: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-timeouts-'));
  server = await startTestServer({
    dir,
    name: 'timeouts',
    config: {
      uri: 'sqlite:///timeouts.sqlite',
      http: { request_timeout_ms: 600, headers_timeout_ms: 400 },
    },
  });
});
afterAll(async () => {
  await server?.handle.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `text` on a raw connection and returns everything the server sends until it closes the connection. */
function rawExchange(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.handle.port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    // The test fails (rather than hangs) if the server never closes the connection.
    socket.setTimeout(20_000, () => {
      socket.destroy();
      resolve(`${received}[still open]`);
    });
  });
}

describe('request time-outs', () => {
  it('answers 408 and closes the connection when the body never arrives', async () => {
    const answer = await rawExchange(
      'POST /api/token/user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).not.toContain('[still open]');
  });

  it('answers 408 and closes the connection when the headers never end', async () => {
    const answer = await rawExchange('GET /api/version HTTP/1.1\r\nHost: x\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('still answers a request that arrives in time', async () => {
    const answer = await rawExchange('GET /api/version HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
