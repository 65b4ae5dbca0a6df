import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { nowStored } from '../http/datetime.js';

/** Data access for who is online: the `status` and `last_seen` of users and nodes. */

/** Marks a user or node online and refreshes its `last_seen`. */
export async function markOnline(db: Kysely<Database>, kind: 'user' | 'node', id: number): Promise<void> {
  await db.updateTable(kind).set({ status: 'online', last_seen: nowStored() }).where('id', '=', id).execute();
}

/** Marks a user or node offline; a node's shared configuration is deleted with it, in one transaction. */
export async function markOffline(db: Kysely<Database>, kind: 'user' | 'node', id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable(kind).set({ status: 'offline' }).where('id', '=', id).execute();
    if (kind === 'node') await trx.deleteFrom('node_config').where('node_id', '=', id).execute();
  });
}

/** Marks every user and node that is online offline. */
export async function markAllOffline(db: Kysely<Database>): Promise<void> {
  await db.updateTable('node').set({ status: 'offline' }).where('status', '=', 'online').execute();
  await db.updateTable('user').set({ status: 'offline' }).where('status', '=', 'online').execute();
}

/** Whether the user or node still exists. */
export async function identityExists(
  db: Kysely<Database>,
  kind: 'user' | 'node',
  id: number,
): Promise<boolean> {
  return (await db.selectFrom(kind).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}
