/** Reads JWT claims without verifying the signature (the node trusts its server; docs/node-protocol.md#at-start). */
export function decodeJwtPayload(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) throw new Error('not a JWT: no payload part');
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The node id of a node access token: `sub` (int), or `identity` of older servers. */
export function nodeIdFromToken(token: string): number {
  const claims = decodeJwtPayload(token);
  for (const key of ['sub', 'identity']) {
    const v = claims[key];
    const n = typeof v === 'string' ? Number(v) : v;
    if (typeof n === 'number' && Number.isInteger(n)) return n;
  }
  throw new Error('the node token carries no numeric sub/identity claim');
}

/** Expiry in epoch milliseconds, or undefined when the token has no `exp`. */
export function tokenExpiry(token: string): number | undefined {
  const exp = decodeJwtPayload(token).exp;
  return typeof exp === 'number' ? exp * 1000 : undefined;
}
