import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import bcrypt from 'bcrypt';
import { startTestApp, type TestApp } from '@federa/testing';

/**
 * Login does not tell who exists, and guessing is throttled per address and per account (docs/security.md,
 * "Sessions, tokens and login"). No timing is measured: the tests count the bcrypt comparisons each answer
 * cost (bench/ has the figures).
 */
describe('login does not say who exists', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      config: {
        password_policy: {
          max_failed_attempts: 2,
          inactivation_minutes: 15,
          max_failed_attempts_per_address: 1000,
        },
      },
    });
  });
  afterAll(async () => t.close());
  afterEach(() => vi.restoreAllMocks());

  /** The answer to one login and how many bcrypt comparisons it cost. */
  async function attempt(username: string, password: string) {
    const compare = vi.spyOn(bcrypt, 'compare');
    const r = await t.api('POST', '/token/user', { body: { username, password } });
    const comparisons = compare.mock.calls.length;
    compare.mockRestore();
    return { status: r.status, body: r.body as unknown, comparisons };
  }

  it('an unknown user, a wrong password and a locked account cost one bcrypt comparison each and get the same answer', async () => {
    const u = await t.fx.user(await t.fx.organization());
    const unknown = await attempt(`ghost-${u.username}`, 'Wrong-Pass-1!');
    const wrong = await attempt(u.username, 'Wrong-Pass-1!');
    await attempt(u.username, 'Wrong-Pass-1!'); // the second failure locks the account
    const locked = await attempt(u.username, u.password);
    for (const a of [unknown, wrong, locked]) {
      expect(a.comparisons).toBe(1);
      expect(a.status).toBe(401);
      expect(a.body).toEqual(unknown.body);
    }
    expect(JSON.stringify(locked.body)).not.toMatch(/this account is locked/i);
  });
});

describe('the per-address throttle counts every failure', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      config: {
        password_policy: {
          max_failed_attempts: 100,
          max_failed_attempts_per_address: 5,
          address_window_minutes: 15,
        },
      },
    });
  });
  afterAll(async () => t.close());

  const login = (username: string, password: string) =>
    t.api('POST', '/token/user', { body: { username, password } });

  it('a successful login in between does not wipe the failures of the address', async () => {
    const org = await t.fx.organization();
    const own = await t.fx.user(org);
    const victim = await t.fx.user(org);
    for (let i = 0; i < 3; i++) expect((await login(victim.username, `Guess-${i}-Aa!`)).status).toBe(401);
    expect((await login(own.username, own.password)).status).toBe(200);
    for (let i = 3; i < 5; i++) expect((await login(victim.username, `Guess-${i}-Aa!`)).status).toBe(401);
    const blocked = await login(own.username, own.password);
    expect(blocked.status).toBe(401);
    expect(blocked.body.code).toBe('address_throttled');
  });
});

describe('PATCH /password/change is throttled like login', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      config: {
        password_policy: {
          max_failed_attempts: 3,
          inactivation_minutes: 15,
          max_failed_attempts_per_address: 1000,
        },
      },
    });
  });
  afterAll(async () => t.close());

  const change = (token: string, current: string) =>
    t.api('PATCH', '/password/change', {
      token,
      body: { current_password: current, new_password: 'Next-Password-8!' },
    });

  it('after max_failed_attempts wrong current passwords the account is locked: the right one is refused too', async () => {
    const u = await t.fx.user(await t.fx.organization());
    const token = await u.token();
    for (let i = 0; i < 3; i++) expect((await change(token, `Guess-${i}-Aa!`)).status).toBe(401);
    const right = await change(token, u.password);
    expect(right.status).toBe(401);
    expect(right.body.msg).toMatch(/locked/);
    // The lock is the account's: logging in is refused as well.
    expect(
      (await t.api('POST', '/token/user', { body: { username: u.username, password: u.password } })).status,
    ).toBe(401);
  });

  it('failures count for the address as for login', async () => {
    const strict = await startTestApp({
      config: {
        password_policy: { max_failed_attempts: 100, max_failed_attempts_per_address: 4 },
      },
    });
    try {
      const u = await strict.fx.user(await strict.fx.organization());
      const token = await u.token();
      const guess = (current: string) =>
        strict.api('PATCH', '/password/change', {
          token,
          body: { current_password: current, new_password: 'Next-Password-8!' },
        });
      for (let i = 0; i < 4; i++) expect((await guess(`Guess-${i}-Aa!`)).status).toBe(401);
      const blocked = await guess(u.password);
      expect(blocked.status).toBe(401);
      expect(blocked.body.code).toBe('address_throttled');
    } finally {
      await strict.close();
    }
  });
});

/**
 * Guesses sent all at once: each password check takes a bcrypt comparison, and many run side by side. Counted only
 * after its comparison, every guess of a burst was let in (the address had no failure yet) and the account counted
 * one failure for the whole burst (each read the same count before writing it plus one). Each guess is now counted
 * before its comparison, so a burst gets no more checks than one guess after the other.
 */
describe('guesses sent at the same moment count one by one', () => {
  const burst = <T>(n: number, send: (i: number) => Promise<T>) =>
    Promise.all(Array.from({ length: n }, (_, i) => send(i)));

  it('lock the account after max_failed_attempts: the right password is refused afterwards', async () => {
    const t = await startTestApp({
      config: { password_policy: { max_failed_attempts: 3, max_failed_attempts_per_address: 1000 } },
    });
    try {
      const u = await t.fx.user(await t.fx.organization());
      const answers = await burst(20, (i) =>
        t.api('POST', '/token/user', { body: { username: u.username, password: `Guess-${i}-Aa!` } }),
      );
      for (const r of answers) expect(r.status).toBe(401);
      const right = await t.api('POST', '/token/user', {
        body: { username: u.username, password: u.password },
      });
      expect(right.status).toBe(401);
      expect(right.body.code).toBe('invalid_credentials');
    } finally {
      await t.close();
    }
  });

  it('are let in from one address up to max_failed_attempts_per_address, logins and password checks alike', async () => {
    const t = await startTestApp({
      config: { password_policy: { max_failed_attempts: 1000, max_failed_attempts_per_address: 5 } },
    });
    try {
      const org = await t.fx.organization();
      const victims = await burst(3, () => t.fx.user(org));
      const logins = await burst(12, (i) =>
        t.api('POST', '/token/user', {
          body: { username: victims[i % 3]!.username, password: `Guess-${i}-Aa!` },
        }),
      );
      const codes = logins.map((r) => (r.body as { code: string }).code).sort();
      expect(codes).toEqual(
        [...Array(5).fill('invalid_credentials'), ...Array(7).fill('address_throttled')].sort(),
      );
      // Node logins from the same address are refused too, and a node's key checked in a burst counts the same.
      const key = await t.api('POST', '/token/node', { body: { api_key: 'not-a-key' } });
      expect(key.body.code).toBe('address_throttled');
    } finally {
      await t.close();
    }
  });

  it('of the current password (PATCH /password/change) lock the account after max_failed_attempts', async () => {
    const t = await startTestApp({
      config: { password_policy: { max_failed_attempts: 3, max_failed_attempts_per_address: 1000 } },
    });
    try {
      const u = await t.fx.user(await t.fx.organization());
      const token = await u.token();
      const answers = await burst(12, (i) =>
        t.api('PATCH', '/password/change', {
          token,
          body: { current_password: `Guess-${i}-Aa!`, new_password: 'Next-Password-8!' },
        }),
      );
      for (const r of answers) expect(r.status).toBe(401);
      const right = await t.api('PATCH', '/password/change', {
        token,
        body: { current_password: u.password, new_password: 'Next-Password-8!' },
      });
      expect(right.status).toBe(401);
      expect(right.body.msg).toMatch(/locked/);
    } finally {
      await t.close();
    }
  });
});
