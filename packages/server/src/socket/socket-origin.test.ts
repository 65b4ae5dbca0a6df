import { io as connectClient, type Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';
import { SocketServer } from './socket-server.js';

/**
 * A page of another site cannot open a socket with a user's token (cross-site WebSocket hijacking; WebSocket
 * upgrades are not subject to CORS): the handshake is refused unless its Origin is the server's own or one of
 * `cors_origins` (docs/security.md). Programs send no Origin and are not concerned. A real server on port 0.
 */
const started: { t: TestApp; sockets: SocketServer }[] = [];

async function server(cors_origins?: string[]): Promise<{ t: TestApp; url: string }> {
  const sockets = new SocketServer();
  const t = await startTestApp({
    dialect: 'sqlite',
    events: sockets.events,
    ...(cors_origins ? { config: { cors_origins } } : {}),
  });
  sockets.bind(t.ctx);
  sockets.attach(t.app.server);
  const port = await t.listen();
  started.push({ t, sockets });
  return { t, url: `http://127.0.0.1:${port}` };
}

afterAll(async () => {
  for (const { t, sockets } of started) {
    await sockets.close();
    await t.close();
  }
});

/** Whether a socket with the root token and this Origin (none: a program) gets connected. */
async function connects(url: string, token: string, origin?: string): Promise<boolean> {
  const c: Socket = connectClient(`${url}/tasks`, {
    forceNew: true,
    reconnection: false,
    transports: ['websocket'],
    extraHeaders: { Authorization: `Bearer ${token}`, ...(origin ? { Origin: origin } : {}) },
  });
  try {
    return await new Promise<boolean>((resolve) => {
      c.once('connect', () => resolve(true));
      c.once('connect_error', () => resolve(false));
    });
  } finally {
    c.disconnect();
  }
}

describe('socket handshakes and their Origin', () => {
  it('by default: programs and the server’s own pages connect; another site’s page does not', async () => {
    const { t, url } = await server();
    expect(await connects(url, t.rootToken)).toBe(true);
    expect(await connects(url, t.rootToken, url)).toBe(true);
    expect(await connects(url, t.rootToken, 'https://evil.example')).toBe(false);
  });

  it('cors_origins lets the named sites in, and only them', async () => {
    const { t, url } = await server(['https://ui.example.org']);
    expect(await connects(url, t.rootToken, 'https://ui.example.org')).toBe(true);
    expect(await connects(url, t.rootToken, 'https://evil.example')).toBe(false);
  });
});
