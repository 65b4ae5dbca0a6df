import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Changes a linked store's name and/or the collaboration it serves (null: all); its address stays. */
export async function updateLinkedStore(
  db: Kysely<Database>,
  id: number,
  values: { name?: string; collaboration_id?: number | null },
): Promise<void> {
  if (Object.keys(values).length === 0) return;
  await db.updateTable('algorithm_store').set(values).where('id', '=', id).execute();
}
