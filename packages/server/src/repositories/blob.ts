import type { Kysely, Selectable } from 'kysely';
import type { BlobTable, Database } from '../db/schema.js';

/** Uploads to `/blobstream` (docs/vantage6-4.md#uploads-to-blobstream) as the database records them. */
export type BlobRow = Selectable<BlobTable>;

/** Records an upload about to be written: its row exists before its first byte is stored. */
export async function insertBlob(
  db: Kysely<Database>,
  row: Omit<BlobTable, 'size' | 'result_id'>,
): Promise<void> {
  await db.insertInto('blob').values(row).execute();
}

/** Records that upload `uuid` is stored whole, `size` bytes. */
export async function setBlobSize(db: Kysely<Database>, uuid: string, size: number): Promise<void> {
  await db.updateTable('blob').set({ size }).where('uuid', '=', uuid).execute();
}

export async function findBlob(db: Kysely<Database>, uuid: string): Promise<BlobRow | undefined> {
  return db.selectFrom('blob').selectAll().where('uuid', '=', uuid).executeTakeFirst();
}

export async function deleteBlobRow(db: Kysely<Database>, uuid: string): Promise<void> {
  await db.deleteFrom('blob').where('uuid', '=', uuid).execute();
}

/** Removes the row of upload `uuid` unless a task has taken it. @returns whether it was removed. */
export async function deleteFreeBlobRow(db: Kysely<Database>, uuid: string): Promise<boolean> {
  const done = await db
    .deleteFrom('blob')
    .where('uuid', '=', uuid)
    .where('result_id', 'is', null)
    .executeTakeFirst();
  return Number(done.numDeletedRows) === 1;
}

/**
 * Makes upload `uuid` the input of run `resultId`, when no task has taken it yet.
 * @returns whether it was taken now.
 */
export async function takeBlob(db: Kysely<Database>, uuid: string, resultId: number): Promise<boolean> {
  const done = await db
    .updateTable('blob')
    .set({ result_id: resultId })
    .where('uuid', '=', uuid)
    .where('result_id', 'is', null)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** The upload that is the input of run `resultId`, if any. */
export async function blobOfRun(db: Kysely<Database>, resultId: number): Promise<BlobRow | undefined> {
  return db.selectFrom('blob').selectAll().where('result_id', '=', resultId).executeTakeFirst();
}

/** Uploads no task references that began before `before` (stored time), oldest first. */
export async function expiredBlobs(db: Kysely<Database>, before: string, limit: number): Promise<BlobRow[]> {
  return db
    .selectFrom('blob')
    .selectAll()
    .where('result_id', 'is', null)
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/**
 * Bytes held by uploads for the quotas: in all, and those of the node of `organizationId` in `collaborationId`
 * (its own uploads and its containers'). An upload under way counts once it is whole.
 */
export async function blobBytes(
  db: Kysely<Database>,
  organizationId: number,
  collaborationId: number,
): Promise<{ node: number; total: number }> {
  const total = await db
    .selectFrom('blob')
    .select((eb) => eb.fn.sum<number | string | null>('size').as('bytes'))
    .executeTakeFirst();
  const node = await db
    .selectFrom('blob')
    .select((eb) => eb.fn.sum<number | string | null>('size').as('bytes'))
    .where('organization_id', '=', organizationId)
    .where('collaboration_id', '=', collaborationId)
    .executeTakeFirst();
  return { node: Number(node?.bytes ?? 0), total: Number(total?.bytes ?? 0) };
}

/** The runs of task `taskId` and their organizations, whose inputs a task's uploads become. */
export async function runsOfTask(
  db: Kysely<Database>,
  taskId: number,
): Promise<{ id: number; organization_id: number }[]> {
  return db.selectFrom('result').select(['id', 'organization_id']).where('task_id', '=', taskId).execute();
}
