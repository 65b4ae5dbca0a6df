import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';
import type { MailMessage } from '../mail/mailer.js';

/**
 * Who a lock keeps out (docs/security.md): wrong passwords lock an account only for the address they came from;
 * the account's own count over all addresses only slows addresses it was never used from; a password reset link
 * is never refused and ends every lock. Each test is a user's view: the attacker's and the owner's answers.
 */
describe('a lock keeps out the address that guessed, not the owner', () => {
  let t: TestApp;
  const mails: MailMessage[] = [];
  beforeAll(async () => {
    t = await startTestApp({
      config: {
        password_policy: {
          max_failed_attempts: 3,
          inactivation_minutes: 15,
          max_failed_attempts_per_address: 1000,
          account_slow_after_failures: 10,
          account_slow_seconds: 3600,
        },
        smtp: { server: 'mail.example.org' },
      },
      mailer: { send: async (m) => void mails.push(m), describe: () => 'memory' },
    });
  });
  afterAll(async () => t.close());

  const login = (username: string, password: string, from: string) =>
    t.api('POST', '/token/user', { body: { username, password }, remoteAddress: from });
  const attacker = '203.0.113.7';

  it('the owner logs in from another address while the guessing address stays locked', async () => {
    const u = await t.fx.user(await t.fx.organization());
    for (let i = 0; i < 5; i++)
      expect((await login(u.username, `Guess-${i}-Aa!`, attacker)).status).toBe(401);
    const fromAttacker = await login(u.username, u.password, attacker);
    expect(fromAttacker.status).toBe(401);
    expect(fromAttacker.body.code).toBe('invalid_credentials');
    expect(fromAttacker.body.msg).toMatch(/from one address.*reset link/);
    expect((await login(u.username, u.password, '198.51.100.2')).status).toBe(200);
    // The owner's success elsewhere lifts nothing for the guessing address.
    expect((await login(u.username, u.password, attacker)).status).toBe(401);
  });

  it('the owner changes their password from another address while a guessing address is locked', async () => {
    const u = await t.fx.user(await t.fx.organization());
    const token = await u.token();
    for (let i = 0; i < 3; i++) await login(u.username, `Guess-${i}-Aa!`, attacker);
    const changed = await t.api('PATCH', '/password/change', {
      token,
      body: { current_password: u.password, new_password: 'Next-Password-8!' },
      remoteAddress: '198.51.100.3',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  });

  it('IPv6 addresses count by their /64: a new address of the same network is still locked', async () => {
    const u = await t.fx.user(await t.fx.organization());
    for (let i = 1; i <= 3; i++)
      expect((await login(u.username, `Guess-${i}-Aa!`, `2001:db8:1:2::${i}`)).status).toBe(401);
    expect((await login(u.username, u.password, '2001:db8:1:2:ffff::99')).status).toBe(401);
    expect((await login(u.username, u.password, '2001:db8:1:3::1')).status).toBe(200);
    // An IPv4 address written as IPv6 is the IPv4 address.
    for (let i = 0; i < 3; i++) await login(u.username, `Guess-${i}-Aa!`, '192.0.2.44');
    expect((await login(u.username, u.password, '::ffff:192.0.2.44')).status).toBe(401);
  });

  it('guesses from many addresses slow new addresses only; a known address and a reset link get through', async () => {
    const u = await t.fx.user(await t.fx.organization());
    const home = '198.51.100.20';
    expect((await login(u.username, u.password, home)).status).toBe(200);
    // Ten failures from five addresses: none is locked (two each), but the account is slowed.
    for (let a = 1; a <= 5; a++)
      for (let i = 0; i < 2; i++)
        expect((await login(u.username, `Guess-${i}-Aa!`, `203.0.113.${a}`)).status).toBe(401);
    const elsewhere = await login(u.username, u.password, '198.51.100.21');
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.code).toBe('invalid_credentials');
    expect((await login(u.username, u.password, home)).status).toBe(200);
  });

  it('a reset link asked for and used from a locked address works and ends every lock', async () => {
    const u = await t.fx.user(await t.fx.organization());
    for (let i = 0; i < 3; i++) await login(u.username, `Guess-${i}-Aa!`, attacker);
    for (let a = 1; a <= 5; a++)
      for (let i = 0; i < 2; i++) await login(u.username, `Guess-${i}-Aa!`, `192.0.2.${a}`);
    expect((await login(u.username, u.password, attacker)).status).toBe(401);
    const asked = await t.api('POST', '/recover/lost', {
      body: { username: u.username },
      remoteAddress: attacker,
    });
    expect(asked.status).toBe(200);
    const end = Date.now() + 5000;
    while (!mails.some((m) => m.to === `${u.username}@example.org`) && Date.now() < end)
      await new Promise((r) => setTimeout(r, 20));
    const mail = mails.find((m) => m.to === `${u.username}@example.org`);
    const token = /\b(eyJ[\w-]+\.[\w-]+\.[\w-]+)\b/.exec(mail?.text ?? '')?.[1];
    expect(token, 'a reset link was mailed').toBeDefined();
    const reset = await t.api('POST', '/recover/reset', {
      body: { reset_token: token, password: 'Reset-Password-7!' },
      remoteAddress: attacker,
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect((await login(u.username, 'Reset-Password-7!', attacker)).status).toBe(200);
    expect((await login(u.username, 'Reset-Password-7!', '192.0.2.99')).status).toBe(200);
  });

  it('a deleted user leaves no counted failures behind', async () => {
    const u = await t.fx.user(await t.fx.organization());
    await login(u.username, 'Guess-0-Aa!', attacker);
    expect((await t.api('DELETE', `/user/${u.id}`, { token: t.rootToken })).status).toBe(200);
    const left = await t.ctx.dbh.db
      .selectFrom('login_failure')
      .select('user_id')
      .where('user_id', '=', u.id)
      .execute();
    expect(left).toEqual([]);
  });
});

describe('the account-wide slowing', () => {
  it('slows, never locks: an unknown address gets a check once account_slow_seconds have passed', async () => {
    const t = await startTestApp({
      config: {
        password_policy: {
          max_failed_attempts: 3,
          max_failed_attempts_per_address: 1000,
          account_slow_after_failures: 4,
          account_slow_seconds: 1,
        },
      },
    });
    try {
      const u = await t.fx.user(await t.fx.organization());
      const login = (password: string, from: string) =>
        t.api('POST', '/token/user', { body: { username: u.username, password }, remoteAddress: from });
      for (let a = 1; a <= 2; a++)
        for (let i = 0; i < 2; i++)
          expect((await login(`Guess-${i}-Aa!`, `203.0.113.${a}`)).status).toBe(401);
      expect((await login(u.password, '198.51.100.30')).status).toBe(401);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await login(u.password, '198.51.100.30')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
