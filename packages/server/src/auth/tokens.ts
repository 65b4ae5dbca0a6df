import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { ContainerTokenIdentity } from '@federa/common';
import { ApiError } from '../errors.js';

export type ClientType = 'user' | 'node' | 'container' | 'reset';

/** The identity object of a container token, as `@federa/common` declares it. */
export type ContainerIdentity = ContainerTokenIdentity;

export interface TokenClaims {
  iat: number;
  nbf: number;
  jti: string;
  exp?: number;
  fresh: boolean;
  type: 'access' | 'refresh';
  sub: number | ContainerIdentity | { id: string };
  identity: number | ContainerIdentity | { id: string };
  client_type: ClientType;
  roles: string[];
  /** User and node tokens: the session (login) they belong to (auth/sessions.ts). */
  sid?: string;
  /** Reset tokens: a fingerprint of the account's password and e-mail when the token was made. */
  fp?: string;
}

/** The session a user or node token belongs to: its id and absolute end (ms since the epoch). */
export interface SessionRef {
  sid: string;
  endsAt: number;
}

/** A lifetime shortened so that the token ends no later than `endsAt`. */
const capped = (seconds: number, endsAt: number): number =>
  Math.min(seconds, Math.floor((endsAt - Date.now()) / 1000));

export interface TokenLifetimes {
  accessSeconds: number;
  refreshSeconds: number;
  resetSeconds: number;
}

/**
 * HS256 JWTs with the claims of docs/access-control.md#tokens. The identity is written under both `sub` and
 * `identity` so that algorithm images built with any 3.x tools read it.
 */
export class TokenService {
  readonly #key: Uint8Array;
  readonly lifetimes: TokenLifetimes;
  readonly #verified = new Map<string, TokenClaims>();

  constructor(secret: string | undefined, lifetimes: TokenLifetimes) {
    this.#key = secret ? new TextEncoder().encode(secret) : randomBytes(32);
    this.lifetimes = lifetimes;
  }

  async #sign(
    claims: Pick<TokenClaims, 'type' | 'sub' | 'client_type' | 'roles'> & {
      sid?: string;
      jti?: string;
      fp?: string;
    },
    lifetimeSeconds: number | undefined,
  ): Promise<string> {
    const iat = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = {
      iat,
      nbf: iat,
      jti: claims.jti ?? randomUUID(),
      fresh: false,
      type: claims.type,
      sub: claims.sub,
      identity: claims.sub,
      client_type: claims.client_type,
      roles: claims.roles,
    };
    if (claims.sid !== undefined) payload.sid = claims.sid;
    if (claims.fp !== undefined) payload.fp = claims.fp;
    if (lifetimeSeconds !== undefined) payload.exp = iat + Math.round(lifetimeSeconds);
    return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(this.#key);
  }

  /**
   * An access token of a session; it expires after the access lifetime, and never after `endsAt` (ms since the
   * epoch), the session's absolute end.
   */
  access(kind: 'user' | 'node', id: number, session: SessionRef, roles: string[] = []): Promise<string> {
    return this.#sign(
      { type: 'access', sub: id, client_type: kind, roles, sid: session.sid },
      capped(this.lifetimes.accessSeconds, session.endsAt),
    );
  }

  /**
   * A refresh token of a session with the given `jti` (the session stores which one may be used next). It expires
   * after the refresh lifetime or, with `untilSessionEnd`, at the session's end; never after that.
   */
  refresh(
    kind: 'user' | 'node',
    id: number,
    session: SessionRef,
    jti: string,
    untilSessionEnd = false,
  ): Promise<string> {
    return this.#sign(
      { type: 'refresh', sub: id, client_type: kind, roles: [], sid: session.sid, jti },
      capped(untilSessionEnd ? Infinity : this.lifetimes.refreshSeconds, session.endsAt),
    );
  }

  /**
   * A container token. It expires after `lifetimeSeconds` (the longest run allowed); besides, it is refused as
   * soon as its task or node is deleted or shortly after its run finished (auth/authenticate.ts).
   */
  container(
    identity: Omit<ContainerIdentity, 'client_type'>,
    lifetimeSeconds: number = 7 * 24 * 3600,
  ): Promise<string> {
    return this.#sign(
      { type: 'access', sub: { client_type: 'container', ...identity }, client_type: 'container', roles: [] },
      lifetimeSeconds,
    );
  }

  /**
   * Password-reset token: `sub` is `{id: "<user id>"}`, marked `client_type: reset`. `fingerprint` (see
   * {@link accountFingerprint}) ties it to the account's password and e-mail address as they are now.
   */
  reset(
    userId: number,
    lifetimeSeconds = this.lifetimes.resetSeconds,
    fingerprint?: string,
  ): Promise<string> {
    return this.#sign(
      {
        type: 'access',
        sub: { id: String(userId) },
        client_type: 'reset',
        roles: [],
        ...(fingerprint !== undefined ? { fp: fingerprint } : {}),
      },
      lifetimeSeconds,
    );
  }

  /**
   * A keyed fingerprint of an account's password hash and e-mail address: a reset token carries it, and stops
   * working once either changes (docs/security.md). Keyed with the token secret, so it says nothing by itself.
   */
  accountFingerprint(passwordHash: string | null, email: string): string {
    return createHmac('sha256', this.#key)
      .update(`${passwordHash ?? ''}\n${email}`)
      .digest('base64url')
      .slice(0, 22);
  }

  /**
   * Verifies signature, `exp` and `nbf`. Expired → 401 "Token has expired"; anything else wrong → 422, as
   * vantage6's clients expect.
   */
  async verify(token: string): Promise<TokenClaims> {
    // A token verified before is not verified again until it expires (HMAC checks cost more than a lookup).
    const known = this.#verified.get(token);
    if (known && (known.exp === undefined || known.exp > Date.now() / 1000)) return known;
    const claims = await this.#verifyFresh(token);
    if (this.#verified.size >= 10_000) this.#verified.clear();
    this.#verified.set(token, claims);
    return claims;
  }

  /** When a token verified before stops being accepted, in ms since the epoch (never: Infinity; unknown: 0). */
  acceptedUntil(token: string): number {
    const known = this.#verified.get(token);
    if (!known) return 0;
    return known.exp === undefined ? Infinity : known.exp * 1000;
  }

  async #verifyFresh(token: string): Promise<TokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.#key, { algorithms: ['HS256'], clockTolerance: 5 });
      const claims = payload as unknown as TokenClaims;
      if (claims.type !== 'access' && claims.type !== 'refresh')
        throw new ApiError('invalid_token', 'Token has no valid type claim');
      if (!['user', 'node', 'container', 'reset'].includes(claims.client_type)) {
        throw new ApiError('invalid_token', 'Token has no valid client_type claim');
      }
      return claims;
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new ApiError('token_expired', 'Token has expired');
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
        throw new ApiError('invalid_token', 'Signature verification failed');
      }
      throw new ApiError('invalid_token', 'Invalid token: it could not be decoded');
    }
  }
}
