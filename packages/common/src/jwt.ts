/**
 * Reading (not verifying) JWT claims. Only the server verifies signatures; clients read the expiry of their own
 * tokens, nodes their id, and algorithm containers their identity.
 */

/** The claims a reader may look at. Everything is optional: tokens of older servers lack some. */
export interface JwtClaims {
  exp?: number;
  iat?: number;
  sub?: unknown;
  identity?: unknown;
  client_type?: string;
  type?: string;
  [claim: string]: unknown;
}

/**
 * Decodes the payload of a compact JWT without checking its signature.
 * @throws Error when the text is not a JWT with a JSON object as payload.
 */
export function decodeJwt(token: string): JwtClaims {
  const parts = token.trim().split('.');
  const payload = parts[1];
  if (parts.length !== 3 || payload === undefined || payload === '') {
    throw new Error('not a JWT: expected three dot-separated parts');
  }
  // The URL alphabet mapped to the standard one: browser Buffer polyfills know no 'base64url' (docs/ui.md).
  const json = Buffer.from(payload.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
  const claims: unknown = JSON.parse(json);
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) {
    throw new Error('not a JWT: the payload is not a JSON object');
  }
  return claims as JwtClaims;
}

/** Expiry of a token in epoch milliseconds, or `null` when it has none or cannot be read. */
export function tokenExpiresAt(token: string): number | null {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return null;
  }
}
