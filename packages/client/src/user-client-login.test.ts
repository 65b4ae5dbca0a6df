/**
 * The UserClient logging in against a real Federa server (the app and its socket.io server on a free port, a
 * throwaway database): who it is, refused logins, and access tokens refreshed before or after they expire.
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ROOT_PASSWORD, rootUserClient, startE2eServer, type E2eServer } from '@federa/testing';
import { AuthenticationError, ConnectionError } from './errors.js';
import { UserClient } from './user-client.js';

let t: E2eServer;
let port: number;

beforeAll(async () => {
  t = await startE2eServer();
  port = t.port;
});
afterAll(async () => {
  await t?.close();
});

/** A client of the test server, logged in as root; `messages` collects its log. */
const rootClient = (options: { refreshMarginSeconds?: number } = {}) => rootUserClient(port, options);

describe('UserClient: logging in', () => {
  it('logs in without logging the password, and knows who it is', async () => {
    const { client, messages } = await rootClient();
    const me = await client.user.me();
    expect(me.username).toBe('root');
    expect(client.userId).toBe(me.id);
    expect(messages.join('\n')).not.toContain(ROOT_PASSWORD);
    expect(messages.some((m) => m.includes('Logged in as "root"'))).toBe(true);
  });

  it('refuses a wrong password with an AuthenticationError', async () => {
    const client = new UserClient({ host: 'http://127.0.0.1', port });
    const error = await client.authenticate('root', 'not-the-password').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401 });
    expect((error as Error).message).toMatch(/Login of "root" failed/);
    expect((error as Error).message).not.toContain('not-the-password');
  });

  it('refuses requests before login', async () => {
    const client = new UserClient({ host: 'http://127.0.0.1', port });
    await expect(client.organization.list()).rejects.toThrow(/call authenticate/);
  });

  it('names host and port when nothing listens', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const client = new UserClient({ host: 'http://127.0.0.1', port: freePort });
    const error = await client.authenticate('root', ROOT_PASSWORD).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ host: 'http://127.0.0.1', port: freePort });
    expect((error as Error).message).toContain(`http://127.0.0.1:${freePort}`);
  });

  it('refreshes an expired access token after a 401, transparently', async () => {
    const lifetimes = t.ctx.tokens.lifetimes;
    const normal = lifetimes.accessSeconds;
    lifetimes.accessSeconds = -60;
    let session;
    try {
      session = await rootClient({ refreshMarginSeconds: -1 });
    } finally {
      lifetimes.accessSeconds = normal;
    }
    const orgs = await session.client.organization.list();
    expect(orgs.length).toBeGreaterThan(0);
    expect(session.messages).toContain('Refreshed the access token.');
  });

  it('refreshes an access token about to expire before using it', async () => {
    const lifetimes = t.ctx.tokens.lifetimes;
    const normal = lifetimes.accessSeconds;
    lifetimes.accessSeconds = 30;
    let session;
    try {
      session = await rootClient();
    } finally {
      lifetimes.accessSeconds = normal;
    }
    await session.client.user.me();
    expect(session.messages.filter((m) => m === 'Refreshed the access token.')).toHaveLength(1);
  });

  it('follows refresh-token rotation: every refresh uses the successor the server answered with', async () => {
    const lifetimes = t.ctx.tokens.lifetimes;
    const normal = lifetimes.accessSeconds;
    // Every access token is about to expire, so every request refreshes first.
    lifetimes.accessSeconds = 30;
    try {
      const session = await rootClient();
      for (let i = 0; i < 3; i++) await session.client.user.me();
      expect(
        session.messages.filter((m) => m === 'Refreshed the access token.').length,
      ).toBeGreaterThanOrEqual(3);
    } finally {
      lifetimes.accessSeconds = normal;
    }
  });

  it('gives up with an AuthenticationError when the refresh token has expired too', async () => {
    const lifetimes = t.ctx.tokens.lifetimes;
    const normal = { ...lifetimes };
    lifetimes.accessSeconds = -60;
    lifetimes.refreshSeconds = -60;
    // By default the login's refresh token lives as long as its session (vantage6 3.3-3.7 clients keep it);
    // without that allowance it expires with the refresh lifetime, as this case needs.
    const config = t.ctx.config as { legacy_refresh_reuse: boolean };
    config.legacy_refresh_reuse = false;
    let session;
    try {
      session = await rootClient({ refreshMarginSeconds: -1 });
    } finally {
      Object.assign(lifetimes, normal);
      config.legacy_refresh_reuse = true;
    }
    const error = await session.client.organization.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toMatch(/Log in again/);
  });
});
