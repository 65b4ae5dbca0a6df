import { describe, expect, it } from 'vitest';
import { decodeJwt, tokenExpiresAt } from './jwt.js';

const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const token = (claims: unknown): string => `${part({ alg: 'HS256' })}.${part(claims)}.signature`;

describe('decodeJwt', () => {
  it('reads the claims of a token, whatever its signature', () => {
    expect(decodeJwt(token({ sub: 7, exp: 100, identity: { node_id: 3 } }))).toEqual({
      sub: 7,
      exp: 100,
      identity: { node_id: 3 },
    });
  });

  it('reads payloads in the URL alphabet (characters - and _)', () => {
    const claims = { note: '??>>~~' };
    expect(part(claims)).toMatch(/[-_]/);
    expect(decodeJwt(token(claims))).toEqual(claims);
  });

  it('refuses what is not a JWT with a JSON object as payload, saying so', () => {
    expect(() => decodeJwt('abc')).toThrow(/three dot-separated parts/);
    expect(() => decodeJwt('a..c')).toThrow(/three dot-separated parts/);
    expect(() => decodeJwt(token([1, 2]))).toThrow(/not a JSON object/);
    expect(() => decodeJwt('a.bm90IGpzb24.c')).toThrow(SyntaxError);
  });
});

describe('tokenExpiresAt', () => {
  it('gives the expiry in milliseconds, or null when there is none or the token is unreadable', () => {
    expect(tokenExpiresAt(token({ exp: 1700000000 }))).toBe(1700000000000);
    expect(tokenExpiresAt(token({ sub: 1 }))).toBeNull();
    expect(tokenExpiresAt('garbage')).toBeNull();
  });
});
