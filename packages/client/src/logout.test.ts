/**
 * Logging out through the client ends the session on a real server: the old tokens are refused afterwards. A
 * server that cannot be reached still leaves the client logged out, and the client says so.
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ROOT_PASSWORD, startE2eServer, type E2eServer } from '@federa/testing';
import { UserClient } from './user-client.js';

let server: E2eServer;
beforeAll(async () => {
  server = await startE2eServer();
});
afterAll(async () => server?.close());

const api = async (token: string, method: string, path: string): Promise<number> =>
  (
    await fetch(`http://127.0.0.1:${server.port}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    })
  ).status;

describe('UserClient.logout', () => {
  it('ends the session on the server: its access and refresh tokens are refused afterwards', async () => {
    const messages: string[] = [];
    const client = new UserClient({
      host: 'http://127.0.0.1',
      port: server.port,
      log: (m) => messages.push(m),
    });
    await client.authenticate('root', ROOT_PASSWORD);
    const tokens = client.sessionTokens;
    expect(tokens).not.toBeNull();
    const { accessToken, refreshToken } = tokens!;
    expect(await api(accessToken, 'GET', '/user')).toBe(200);

    const out = await client.logout();
    expect(out.ended).toBe(true);
    expect(messages.some((m) => m.includes('the server ended the session'))).toBe(true);
    expect(client.sessionTokens).toBeNull();
    await expect(client.organization.list()).rejects.toThrow(/call authenticate/);
    expect(await api(accessToken, 'GET', '/user')).toBe(401);
    expect(await api(refreshToken!, 'POST', '/token/refresh')).toBe(401);

    // Logging in again (which forgets any earlier tokens first) gives a working session.
    await client.authenticate('root', ROOT_PASSWORD);
    expect((await client.organization.list()).length).toBeGreaterThan(0);
  });

  it('forgets the tokens when the server cannot be reached, and says so', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const live = new UserClient({ host: 'http://127.0.0.1', port: server.port });
    await live.authenticate('root', ROOT_PASSWORD);
    const messages: string[] = [];
    const client = new UserClient({ host: 'http://127.0.0.1', port: freePort, log: (m) => messages.push(m) });
    client.resumeSession(live.sessionTokens!);

    const out = await client.logout();
    expect(out.ended).toBe(false);
    expect(out.message).toMatch(
      /Logged out locally: the tokens are forgotten, but the server could not be reached/,
    );
    expect(messages).toContain(out.message);
    expect(client.sessionTokens).toBeNull();
  });
});
