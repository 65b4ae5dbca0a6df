import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { SessionRow } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { formatStored, nowStored } from '../http/datetime.js';
import type { SessionRef, TokenClaims } from './tokens.js';
import type { SessionState } from './caller.js';
import { V4_SESSION_PREFIX } from '../socket/surfaces.js';
import {
  deleteSessionsBefore,
  endOpenSessions,
  endSessionRow,
  findSession,
  insertSession,
  spendLoginRefreshJti,
  spendRefreshJti,
} from '../repositories/session.js';

/**
 * Sessions: every login of a user or node opens one, and its tokens name it (claim `sid`). A session ends when
 * the password changes or is reset, the node's API key is reset, the identity is deleted, or one of its refresh
 * tokens is used twice; it also has an absolute end that refreshing never moves. docs/security.md, "Sessions,
 * tokens and login", describes the rules and the tests that hold them.
 */
export type SessionKind = 'user' | 'node';

/** Why a session ended (stored in `session.end_reason`, shown in the refusal). */
export type EndReason =
  'password_changed' | 'password_reset' | 'api_key_reset' | 'refresh_reused' | 'deleted' | 'logged_out';

const END_TEXT: Record<EndReason, string> = {
  password_changed: 'the password was changed',
  password_reset: 'the password was reset',
  api_key_reset: "the node's API key was reset",
  refresh_reused: 'a refresh token of it was used twice',
  deleted: 'the account was deleted',
  logged_out: 'its owner logged out',
};

export interface SessionTokens {
  access_token: string;
  refresh_token: string;
}

const storedMs = (stored: string): number => Date.parse(`${stored}Z`);

const maxHours = (ctx: AppContext, kind: SessionKind): number =>
  kind === 'user' ? ctx.config.session_max_hours : ctx.config.node_session_max_hours;

async function issue(
  ctx: AppContext,
  kind: SessionKind,
  id: number,
  ref: SessionRef,
  refreshJti: string,
  roles: string[],
  atLogin = false,
): Promise<SessionTokens> {
  // vantage6 3.3–3.7 clients and nodes present the login's refresh token for the whole session (they never see
  // another): with legacy_refresh_reuse it lives as long as the session (docs/security.md).
  const untilSessionEnd = atLogin && ctx.config.legacy_refresh_reuse;
  return {
    access_token: await ctx.tokens.access(kind, id, ref, roles),
    refresh_token: await ctx.tokens.refresh(kind, id, ref, refreshJti, untilSessionEnd),
  };
}

/** Ended or expired sessions are kept this long (their tokens are refused with a reason), then deleted. */
const KEEP_ENDED_MS = 7 * 24 * 3_600_000;
const lastPrune = new WeakMap<AppContext, number>();

/** Deletes sessions that ended or expired more than a week ago; at most once an hour per instance. */
async function pruneSessions(ctx: AppContext, now: number): Promise<void> {
  if (now - (lastPrune.get(ctx) ?? 0) < 3_600_000) return;
  lastPrune.set(ctx, now);
  const horizon = formatStored(new Date(now - KEEP_ENDED_MS));
  await deleteSessionsBefore(ctx.dbh.db, horizon);
}

/** Deletes old sessions now (tests, maintenance). */
export async function pruneSessionsNow(ctx: AppContext): Promise<void> {
  lastPrune.delete(ctx);
  await pruneSessions(ctx, Date.now());
}

/** Opens a session for a user or node that just logged in, and gives its first tokens. */
export async function openSession(
  ctx: AppContext,
  kind: SessionKind,
  id: number,
  roles: string[] = [],
  surface: 'v3' | 'v4' = 'v3',
): Promise<SessionTokens> {
  const now = Date.now();
  // A login on the 4.x surface marks its session, so that its sockets hear 4.x's events (socket/surfaces.ts).
  // A session id is a UUID (36 characters, as stored); its first characters, hexadecimal otherwise, say `v4-`.
  const uuid = randomUUID();
  const sid = surface === 'v4' ? `${V4_SESSION_PREFIX}${uuid.slice(V4_SESSION_PREFIX.length)}` : uuid;
  const ref: SessionRef = { sid, endsAt: now + maxHours(ctx, kind) * 3_600_000 };
  const jti = randomUUID();
  await insertSession(ctx.dbh.db, {
    id: ref.sid,
    kind,
    subject_id: id,
    created_at: formatStored(new Date(now)),
    expires_at: formatStored(new Date(ref.endsAt)),
    login_jti: jti,
    refresh_jti: jti,
    rotated: 0,
    ended_at: null,
    end_reason: null,
  });
  await pruneSessions(ctx, now);
  return issue(ctx, kind, id, ref, jti, roles, true);
}

const ended = (why: string): ApiError =>
  new ApiError('session_ended', `Token has expired: its session has ended (${why}). Log in again.`);

/**
 * The live session a user or node token belongs to.
 * @throws ApiError `session_ended` when the token names no session (issued before sessions existed, or by
 *   another identity), or the session has ended or passed its absolute end.
 */
export async function liveSession(ctx: AppContext, claims: TokenClaims): Promise<SessionRow> {
  const sid = claims.sid;
  if (typeof sid !== 'string') throw ended('the token belongs to no session');
  const row = await findSession(ctx.dbh.db, sid);
  checkSession(claims, row);
  return row;
}

/**
 * Refuses a token whose session (read with the caller, `SessionState`) is missing, another identity's, ended or
 * past its absolute end.
 * @throws ApiError `session_ended`, as {@link liveSession}.
 */
export function checkSession<T extends SessionState>(
  claims: TokenClaims,
  row: T | undefined,
): asserts row is T {
  if (!row || row.kind !== claims.client_type || row.subject_id !== claims.sub)
    throw ended('the token belongs to no session');
  if (row.ended_at !== null) throw ended(END_TEXT[row.end_reason as EndReason] ?? 'it was ended');
  if (row.expires_at === null || storedMs(row.expires_at) <= Date.now())
    throw ended('it reached its maximum lifetime');
}

/**
 * Rotation: the refresh token presented must be the session's current one; it is spent, and the answer carries
 * its successor. A refresh token used a second time ends the session (whoever holds the other copy is locked
 * out too) — except, with `legacy_refresh_reuse`, the login's refresh token of a session that never presented a
 * successor: vantage6 3.3–3.7 clients keep that one for the whole session.
 */
export async function rotateSession(
  ctx: AppContext,
  claims: TokenClaims,
  roles: string[],
): Promise<SessionTokens> {
  const row = await liveSession(ctx, claims);
  const kind = row.kind;
  const next = randomUUID();
  const presented = claims.jti;
  const db = ctx.dbh.db;
  let spent = false;
  if (presented === row.refresh_jti) {
    spent = await spendRefreshJti(db, row.id, presented, next, presented === row.login_jti ? row.rotated : 1);
  } else if (ctx.config.legacy_refresh_reuse && presented === row.login_jti && row.rotated === 0) {
    spent = await spendLoginRefreshJti(db, row.id, next);
  }
  if (!spent) {
    await endSession(ctx, row, 'refresh_reused');
    ctx.log.warn(
      { event: 'session.refresh_reused', [`${kind}_id`]: row.subject_id, session: row.id },
      'a refresh token was used twice: session ended',
    );
    throw new ApiError(
      'refresh_reused',
      'This refresh token was already used, so its session has ended. Log in again.',
    );
  }
  return issue(ctx, kind, row.subject_id, { sid: row.id, endsAt: storedMs(row.expires_at) }, next, roles);
}

/**
 * Logging out: ends the session of the presented token. Its access token and every refresh token of it are refused
 * from then on, and its sockets are closed; the owner's other sessions go on.
 */
export async function logOut(ctx: AppContext, claims: TokenClaims): Promise<void> {
  const row = await liveSession(ctx, claims);
  await endSession(ctx, row, 'logged_out');
  ctx.log.info(
    { event: 'session.logged_out', [`${row.kind}_id`]: row.subject_id, session: row.id },
    'logged out: session ended',
  );
}

async function endSession(ctx: AppContext, row: SessionRow, reason: EndReason): Promise<void> {
  await endSessionRow(ctx.dbh.db, row.id, nowStored(), reason);
  ctx.events.identityChanged?.({ what: 'ended', kind: row.kind, id: row.subject_id, sid: row.id });
}

/**
 * Ends every open session of a user or node, and disconnects its sockets. Called when the password changes or is
 * reset, the API key is reset, or the identity is deleted. Returns how many sessions ended.
 */
export async function endSessions(
  ctx: AppContext,
  kind: SessionKind,
  id: number,
  reason: EndReason,
): Promise<number> {
  const count = await endOpenSessions(ctx.dbh.db, kind, id, nowStored(), reason);
  ctx.events.identityChanged?.({ what: 'ended', kind, id });
  ctx.log.info({ event: 'session.ended', [`${kind}_id`]: id, reason, count }, 'sessions ended');
  return count;
}
