import { decodeJwt } from '@federa/common';

/** The node id of a node access token: `sub` (int), or `identity` of older servers (read, not verified: the node trusts its server). */
export function nodeIdFromToken(token: string): number {
  const claims = decodeJwt(token);
  for (const key of ['sub', 'identity']) {
    const v = claims[key];
    const n = typeof v === 'string' ? Number(v) : v;
    if (typeof n === 'number' && Number.isInteger(n)) return n;
  }
  throw new Error('the node token carries no numeric sub/identity claim');
}

/** Expiry in epoch milliseconds, or undefined when the token has no `exp`. */
export function tokenExpiry(token: string): number | undefined {
  const exp = decodeJwt(token).exp;
  return typeof exp === 'number' ? exp * 1000 : undefined;
}
