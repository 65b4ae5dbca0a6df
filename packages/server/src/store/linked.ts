import type { Kysely } from 'kysely';
import { can, type Caller } from '../auth/caller.js';
import { callerCollaborations } from '../auth/scope.js';
import type { Database } from '../db/schema.js';
import { ApiError, notFound } from '../errors.js';
import type { AppContext } from '../context.js';
import { findLinkedStore } from '../repositories/store.js';

/** A store linked to this server (`POST /algorithmstore`). */
export interface LinkedStore {
  id: number;
  name: string;
  url: string;
  collaboration_id: number | null;
}

/**
 * Which linked stores a caller may know of (docs/store.md#running-a-store): a store for every collaboration, and
 * one linked to a collaboration the caller may view (`collaboration.v_glo`: all; `collaboration.v_org`: those of
 * their organization). A store linked only to another collaboration is, to them, not there at all.
 */
export async function storeVisibility(
  db: Kysely<Database>,
  caller: Caller,
): Promise<(store: { collaboration_id: number | null }) => boolean> {
  if (can(caller, 'collaboration.v_glo')) return () => true;
  const seen = new Set(can(caller, 'collaboration.v_org') ? await callerCollaborations(db, caller) : []);
  return (store) => store.collaboration_id === null || seen.has(store.collaboration_id);
}

/**
 * The linked store `id`, or a 404 naming it. With a caller, a store they may not know of is the same 404 as a store
 * that does not exist: the answer must not tell them it is there.
 */
export async function linkedStore(ctx: AppContext, id: number, caller?: Caller): Promise<LinkedStore> {
  const store = await findLinkedStore(ctx.dbh.db, id);
  if (!store || (caller && !(await storeVisibility(ctx.dbh.db, caller))(store)))
    throw notFound('Algorithm store', id);
  return store;
}

/**
 * Reads `path` (with `query`) of a linked store, as anyone may read its approved algorithms: no token is sent,
 * like a node's check. A store that does not answer within `algorithm_store.timeout_ms`, or answers with
 * something else than JSON, is `store_unreachable` (503) and the message names it; its 404 is passed on as ours.
 * `doing` ends the message: what did not happen because of it.
 */
export async function askLinkedStore(
  ctx: AppContext,
  store: LinkedStore,
  path: string,
  doing: string,
  query: Record<string, string | number | undefined> = {},
): Promise<unknown> {
  const url = new URL(`${store.url.replace(/\/+$/, '')}${path}`);
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) url.searchParams.set(key, String(value));
  const unreachable = (why: string) =>
    new ApiError(
      'store_unreachable',
      `The algorithm store '${store.name}' (${store.url}) ${why}; ${doing}. Try again later, or ask the server's administrator whether the store moved.`,
    );
  let answer: Response;
  try {
    answer = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(ctx.config.algorithm_store.timeout_ms),
    });
  } catch {
    throw unreachable('cannot be reached');
  }
  const body = (await answer.json().catch(() => undefined)) as unknown;
  if (answer.status === 404)
    throw notFound(`Algorithm in store '${store.name}'`, path.split('/').pop() ?? '');
  if (!answer.ok || body === undefined) throw unreachable(`answered HTTP ${answer.status}`);
  return body;
}

/**
 * Whether `value` reads as a store's algorithm: an id, a name, an image and a list of functions, each an object
 * with a name. What a function holds besides is the reader's to check: the task check reads its arguments, the
 * web UI its views.
 */
export const isAlgorithm = (value: unknown): value is Record<string, unknown> & { id: number } => {
  const a = value as Record<string, unknown> | null;
  return (
    typeof a === 'object' &&
    a !== null &&
    typeof a.id === 'number' &&
    typeof a.name === 'string' &&
    typeof a.image === 'string' &&
    Array.isArray(a.functions) &&
    a.functions.every(
      (f: unknown) =>
        typeof f === 'object' && f !== null && typeof (f as Record<string, unknown>).name === 'string',
    )
  );
};
