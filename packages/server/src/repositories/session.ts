import type { Kysely } from 'kysely';
import type { Database, Session } from '../db/schema.js';

/** Data access for sessions (docs/security.md): one per login of a user or node. */

export async function findSession(db: Kysely<Database>, id: string): Promise<Session | undefined> {
  return db.selectFrom('session').selectAll().where('id', '=', id).executeTakeFirst();
}
