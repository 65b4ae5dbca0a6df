import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { nowStored } from '../db/stored-time.js';
import { closePeriods, closeStalePeriods, openPeriods, type EndReason } from './node-history.js';

/**
 * Data access for who is online: the `status` and `last_seen` of users and nodes, and the periods nodes were online
 * (repositories/node-history.ts), written in the same transactions.
 */

/** Ids per statement when many are written at once (well below every dialect's parameter limit). */
const IDS_PER_STATEMENT = 500;

function* chunks(ids: readonly number[]): Generator<number[]> {
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) yield ids.slice(i, i + IDS_PER_STATEMENT);
}

/** Marks users or nodes online and sets their `last_seen` to now (nodes: opens their online period), in one transaction. */
export async function markOnline(
  db: Kysely<Database>,
  kind: 'user' | 'node',
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  const now = nowStored();
  await db.transaction().execute(async (trx) => {
    for (const part of chunks(ids)) {
      await trx.updateTable(kind).set({ status: 'online', last_seen: now }).where('id', 'in', part).execute();
      if (kind === 'node') await openPeriods(trx, part, now);
    }
  });
}

/**
 * Marks users or nodes offline, in one transaction; a node's shared configuration is deleted with it and its online
 * period ended for `reason`. Answers node id → the period ended.
 */
export async function markOffline(
  db: Kysely<Database>,
  kind: 'user' | 'node',
  ids: readonly number[],
  reason: EndReason = 'disconnected',
): Promise<Map<number, number>> {
  const ended = new Map<number, number>();
  if (ids.length === 0) return ended;
  const now = nowStored();
  await db.transaction().execute(async (trx) => {
    for (const part of chunks(ids)) {
      await trx.updateTable(kind).set({ status: 'offline' }).where('id', 'in', part).execute();
      if (kind !== 'node') continue;
      await trx.deleteFrom('node_config').where('node_id', 'in', part).execute();
      for (const [node, period] of await closePeriods(trx, part, now, reason)) ended.set(node, period);
    }
  });
  return ended;
}

/** Marks every user and node that is online offline, and ends the online periods left open. */
export async function markAllOffline(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await closeStalePeriods(trx, nowStored());
    await trx.updateTable('node').set({ status: 'offline' }).where('status', '=', 'online').execute();
    await trx.updateTable('user').set({ status: 'offline' }).where('status', '=', 'online').execute();
  });
}

/** Whether the user or node still exists. */
export async function identityExists(
  db: Kysely<Database>,
  kind: 'user' | 'node',
  id: number,
): Promise<boolean> {
  return (await db.selectFrom(kind).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
