import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { IdQuery } from './listing.js';

/**
 * Data access for the periods nodes were online (`node_online_period`, migration 0028; docs/socket-protocol.md#online-history). Written by repositories/presence.ts within the transactions that set a node's `status`.
 */

/** Why an online period ended (docs/api.md#nodes lists them). */
export const END_REASONS = [
  /** The node closed its connection (it was stopped). */
  'disconnected',
  /** The connection broke without a goodbye (network, node crashed). */
  'connection_lost',
  /** The node stopped answering the server's pings. */
  'timed_out',
  /** The server closed it: the node's session ended (API key reset, node deleted, …). */
  'disconnected_by_server',
  /** The server instance holding the connection stopped. */
  'server_stopped',
  /** Found still open when the server started after a crash; ended at the node's last sign of life. */
  'server_restarted',
] as const;
export type EndReason = (typeof END_REASONS)[number];

/** Periods kept per node: older ones are deleted when a new one starts. */
export const KEPT_PERIODS = 100;

/** The end reason of a socket.io `disconnect` reason (as the server sees it). */
export function endReasonOf(socketReason: string): EndReason {
  switch (socketReason) {
    case 'client namespace disconnect':
      return 'disconnected';
    case 'ping timeout':
      return 'timed_out';
    case 'server namespace disconnect':
      return 'disconnected_by_server';
    case 'server shutting down':
    case 'forced close':
    case 'forced server close':
      return 'server_stopped';
    default:
      return 'connection_lost';
  }
}

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Opens a period starting `now` for each of the nodes that exist and have none open. A node marked online again
 * (a ping, a second socket) keeps its open period.
 */
export async function openPeriods(db: Db, ids: readonly number[], now: string): Promise<void> {
  const fresh = await db
    .selectFrom('node')
    .select('node.id')
    .where('node.id', 'in', ids)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('node_online_period as p')
            .select('p.id')
            .whereRef('p.node_id', '=', 'node.id')
            .where('p.ended_at', 'is', null),
        ),
      ),
    )
    .execute();
  if (fresh.length === 0) return;
  const started = fresh.map((n) => n.id);
  await db
    .insertInto('node_online_period')
    .values(started.map((node_id) => ({ node_id, started_at: now })))
    .execute();
  await prune(db, started);
}

/** Deletes all but the newest {@link KEPT_PERIODS} periods of the nodes (one statement). */
async function prune(db: Db, ids: readonly number[]): Promise<void> {
  const ranked = db
    .selectFrom('node_online_period')
    .select(['id', sql<number>`row_number() over (partition by node_id order by id desc)`.as('rank')])
    .where('node_id', 'in', ids)
    .as('ranked');
  await db
    .deleteFrom('node_online_period')
    .where('id', 'in', db.selectFrom(ranked).select('ranked.id').where('ranked.rank', '>', KEPT_PERIODS))
    .execute();
}

/** Ends the open periods of the nodes at `now`; answers node id → the period ended (the newest, if several). */
export async function closePeriods(
  db: Db,
  ids: readonly number[],
  now: string,
  reason: EndReason,
): Promise<Map<number, number>> {
  const open = await db
    .selectFrom('node_online_period')
    .select(['id', 'node_id'])
    .where('node_id', 'in', ids)
    .where('ended_at', 'is', null)
    .execute();
  const closed = new Map<number, number>();
  if (open.length === 0) return closed;
  await db
    .updateTable('node_online_period')
    .set({ ended_at: now, end_reason: reason })
    .where(
      'id',
      'in',
      open.map((p) => p.id),
    )
    .execute();
  for (const p of open) closed.set(p.node_id, Math.max(p.id, closed.get(p.node_id) ?? 0));
  return closed;
}

/**
 * At the start of a single-instance server: the periods still open were left by a run that stopped without
 * closing them (a crash). Each ends at its node's last sign of life (`last_seen`), not at this start.
 */
export async function closeStalePeriods(db: Db, now: string): Promise<void> {
  await sql`update node_online_period
    set end_reason = ${'server_restarted' satisfies EndReason},
      ended_at = coalesce(
        (select case when node.last_seen > node_online_period.started_at then node.last_seen
                     else node_online_period.started_at end
           from node where node.id = node_online_period.node_id),
        ${now})
    where ended_at is null`.execute(db);
}

/**
 * Undoes the end of period `periodId` of the node: another instance took a new socket of the node while this one
 * marked it offline, so it never was. A period opened meanwhile (by that instance) is folded back into it.
 */
export async function reopenPeriod(db: Kysely<Database>, nodeId: number, periodId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('node_online_period')
      .where('node_id', '=', nodeId)
      .where('id', '>', periodId)
      .where('ended_at', 'is', null)
      .execute();
    await trx
      .updateTable('node_online_period')
      .set({ ended_at: null, end_reason: null })
      .where('id', '=', periodId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('node_online_period as later')
              .select('later.id')
              .where('later.node_id', '=', nodeId)
              .where('later.id', '>', periodId),
          ),
        ),
      )
      .execute();
  });
}

/** The ids of a node's periods, newest first (a listing's {@link IdQuery}). */
export function historyIds(db: Kysely<Database>, nodeId: number): IdQuery {
  return db.selectFrom('node_online_period').select('id').where('node_id', '=', nodeId).orderBy('id', 'desc');
}

/** The periods of these ids (any order). */
export function periodsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return db
    .selectFrom('node_online_period')
    .select(['id', 'node_id', 'started_at', 'ended_at', 'end_reason'])
    .where('id', 'in', ids)
    .execute();
}
