import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Server } from 'socket.io';
import { SocketChannel, type SocketHandlers } from './socket-channel.js';

// A bare socket.io server stands in for Federa here: what is tested is the node's side of the handshake.
let http: HttpServer | undefined;
let io: Server | undefined;
let channel: SocketChannel | undefined;

afterEach(async () => {
  await channel?.close();
  await io?.close();
  http = undefined;
  io = undefined;
  channel = undefined;
});

async function serve(
  refuse: (attempt: number) => number | null,
  transports: ('polling' | 'websocket')[] = ['polling', 'websocket'],
): Promise<{ url: string; attempts: number[]; transports: string[] }> {
  http = createServer();
  io = new Server(http, { transports });
  const used: string[] = [];
  io.of('/tasks').on('connection', (s) => used.push(s.conn.transport.name));
  const attempts: number[] = [];
  io.of('/tasks').use((_socket, next) => {
    attempts.push(performance.now());
    const retryAfter = refuse(attempts.length);
    if (retryAfter === null) return next();
    const busy: Error & { data?: unknown } = new Error('server busy');
    busy.data = { code: 'server_busy', retry_after_ms: retryAfter };
    next(busy);
  });
  await new Promise<void>((r) => http!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, attempts, transports: used };
}

function open(url: string, random = Math.random): { connects: number[] } {
  const connects: number[] = [];
  const handlers: SocketHandlers = {
    onConnect: () => connects.push(performance.now()),
    onNewTask: () => undefined,
    onExpiredToken: () => undefined,
    onKill: () => undefined,
  };
  channel = new SocketChannel({
    serverBase: url,
    token: 'token',
    log: pino({ level: 'silent' }),
    handlers,
    random,
  });
  channel.connect();
  return { connects };
}

const until = async (ok: () => boolean, timeoutMs = 10_000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('SocketChannel transports', () => {
  it('opens a WebSocket at once, and falls back to long-polling where WebSockets do not pass', async () => {
    const direct = await serve(() => null);
    const first = open(direct.url);
    await until(() => first.connects.length === 1);
    expect(direct.transports).toEqual(['websocket']);
    await channel?.close();
    await io?.close();
    const pollingOnly = await serve(() => null, ['polling']);
    const second = open(pollingOnly.url);
    await until(() => second.connects.length === 1);
    expect(pollingOnly.transports).toEqual(['polling']);
  });
});

describe('SocketChannel reconnecting', () => {
  it('comes back when a busy server says, not before, and connects then', async () => {
    const { url, attempts } = await serve((n) => (n <= 2 ? 400 : null));
    const { connects } = open(url, () => 0.5);
    await until(() => connects.length === 1);
    expect(attempts).toHaveLength(3);
    for (const i of [1, 2]) {
      const gap = attempts[i]! - attempts[i - 1]!;
      // 400 ms plus 10% (half of the 20% jitter), never earlier; a little slack for a loaded machine.
      expect(gap).toBeGreaterThanOrEqual(440 - 5);
      expect(gap).toBeLessThan(440 + 400);
    }
  });

  it('after losing the server, waits a jittered 0.5–1 s and connects again', async () => {
    const { url, attempts } = await serve(() => null);
    const { connects } = open(url, () => 0.2);
    await until(() => connects.length === 1);
    const lost = performance.now();
    // The server closes the transport, as a restarting server does.
    io!.of('/tasks').sockets.forEach((s) => s.conn.close());
    await until(() => connects.length === 2);
    expect(attempts).toHaveLength(2);
    // random 0.2: 500 + 0.2·500 = 600 ms after the loss.
    expect(attempts[1]! - lost).toBeGreaterThanOrEqual(600 - 5);
    expect(attempts[1]! - lost).toBeLessThan(600 + 400);
  });
});
