import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { averageDescription, startTestApp, type TestApp } from '@federa/testing';
import { startStore, type StoreHandle } from './standalone.js';
import { runStoreCli } from '../bin/vstore-cli.js';

// A store in a process of its own, shared by servers: it asks the server a caller names who holds the token.

let server: TestApp;
let serverUrl: string;
let store: StoreHandle;

beforeAll(async () => {
  server = await startTestApp();
  const listening = await server.app.listen({ host: '127.0.0.1', port: 0 });
  serverUrl = `${listening}/api`;
  store = await startStore({
    uri: 'sqlite://',
    dataDir: process.cwd(),
    ip: '127.0.0.1',
    port: 0,
    path: '/api',
    trustedServers: [serverUrl],
    managers: [{ server_url: `${serverUrl}/`, username: 'root' }],
    timeoutMs: 2000,
    log: pino({ level: 'silent' }),
  });
});
afterAll(async () => {
  await store?.close();
  await server?.close();
});

const call = async (path: string, init: RequestInit & { token?: string; server?: string } = {}) => {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.server) headers['server-url'] = init.server;
  const r = await fetch(`${store.url}/api${path}`, { ...init, headers });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> & { data?: unknown[] } };
};

describe('a store of its own', () => {
  it("takes a trusted server's user as that server says, with the roles the store gives them", async () => {
    const me = await call('/user/me', { token: server.rootToken, server: serverUrl });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ username: 'root', server_url: serverUrl });
    expect(me.body.roles).toContain('store manager');
    const made = await call('/algorithm', {
      method: 'POST',
      token: server.rootToken,
      server: serverUrl,
      body: JSON.stringify(averageDescription('reg.example.org/average:1')),
    });
    expect(made.status).toBe(201);
    expect(made.body.reviews).toBe(`/api/review?algorithm_id=${made.body.id as number}`);

    const org = await server.fx.organization();
    const plain = await (await server.fx.user(org)).token();
    const viewer = await call('/algorithm', {
      method: 'POST',
      token: plain,
      server: serverUrl,
      body: JSON.stringify(averageDescription('reg.example.org/x:1')),
    });
    expect(viewer.status).toBe(401);
    expect(viewer.body.msg).toContain("'developer'");
  });

  it('refuses a server it does not trust, a token the server refuses, and a call naming no server', async () => {
    const other = await call('/user/me', { token: server.rootToken, server: 'http://127.0.0.1:1/api' });
    expect(other.status).toBe(401);
    expect(other.body.msg).toContain('does not trust');
    const bad = await call('/user/me', { token: 'not-a-token', server: serverUrl });
    expect(bad.status).toBe(422);
    const none = await call('/user/me', { token: server.rootToken });
    expect(none.status).toBe(400);
    expect(none.body.msg).toContain('Server-Url');
    expect((await call('/algorithm')).status).toBe(200);
  });

  it('says so when the server cannot be reached', async () => {
    const lonely = await startStore({
      uri: 'sqlite://',
      dataDir: process.cwd(),
      ip: '127.0.0.1',
      port: 0,
      path: '/api',
      trustedServers: ['http://127.0.0.1:9/api'],
      managers: [],
      timeoutMs: 1000,
      log: pino({ level: 'silent' }),
    });
    try {
      const r = await fetch(`${lonely.url}/api/user/me`, {
        headers: { authorization: `Bearer ${server.rootToken}`, 'server-url': 'http://127.0.0.1:9/api' },
      });
      expect(r.status).toBe(503);
      expect(await r.json()).toMatchObject({ code: 'store_unreachable' });
    } finally {
      await lonely.close();
    }
  });

  it('vstore refuses a malformed manager', async () => {
    const err: string[] = [];
    const reason = await runStoreCli(['start', '--trusted-server', serverUrl, '--manager', 'root'], {
      out: () => undefined,
      err: (t) => void err.push(t),
      start: startStore,
      env: {},
    });
    expect(reason).toBe('usage');
    expect(err.join('')).toContain('SERVER_URL#username');
  });
});
