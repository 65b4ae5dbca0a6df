import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { StoreAlgorithmRow, StoreFunctionRow, StoreUserRow } from '../db/store-schema.js';
import type { IdQuery } from './listing.js';
import type { FunctionDescription } from '../store/description.js';

/** Data access for the algorithm store (docs/store.md). */

/** The filters of `GET /algorithm`: `status` null lists every status. */
export interface AlgorithmFilter {
  statuses: readonly string[] | null;
  /** `invalidated`: only algorithms taken out of use (replaced, removed, rejected). */
  invalidated?: boolean;
  name?: string | undefined;
  display_name?: string | undefined;
  description?: string | undefined;
  partitioning?: string | undefined;
  vantage6_version?: string | undefined;
  image?: string | undefined;
  digest?: string | undefined;
  /** Words that must each appear in the name, display name or description (case-insensitive). */
  search?: string | undefined;
  developer_id?: number | undefined;
}

const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The ids of the algorithms matching `filter`, newest first. Name filters take SQL LIKE patterns (`%`), as 4.x. */
export function algorithmIds(db: Kysely<Database>, filter: AlgorithmFilter): IdQuery {
  let ids = db
    .selectFrom('store_algorithm')
    .select('store_algorithm.id')
    .orderBy('store_algorithm.id', 'desc');
  if (filter.statuses) ids = ids.where('status', 'in', filter.statuses.length ? filter.statuses : ['-']);
  if (filter.invalidated) ids = ids.where('invalidated_at', 'is not', null);
  for (const key of ['name', 'display_name', 'description', 'partitioning', 'vantage6_version'] as const) {
    const value = filter[key];
    if (value !== undefined) ids = ids.where(key, 'like', value);
  }
  if (filter.image !== undefined) ids = ids.where('image', '=', filter.image);
  if (filter.digest !== undefined) ids = ids.where('digest', '=', filter.digest);
  if (filter.developer_id !== undefined) ids = ids.where('developer_id', '=', filter.developer_id);
  for (const word of (filter.search ?? '').split(/\s+/).filter(Boolean).slice(0, 8)) {
    const pattern = `%${likeEscape(word.toLowerCase())}%`;
    ids = ids.where((eb) =>
      eb.or([
        eb(sql`lower(name)`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(coalesce(display_name, ''))`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(coalesce(description, ''))`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  return ids;
}

/** The number that moves with every change of the catalogue and the policies (migration 0027). */
export async function catalogueVersion(db: Kysely<Database>): Promise<string> {
  const row = await db
    .selectFrom('store_catalogue_version')
    .select('version')
    .where('id', '=', 1)
    .executeTakeFirst();
  return String(row?.version ?? '');
}

export async function algorithmRows(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<StoreAlgorithmRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('store_algorithm').selectAll().where('id', 'in', ids).execute();
}

export async function findAlgorithm(
  db: Kysely<Database>,
  id: number,
): Promise<StoreAlgorithmRow | undefined> {
  return db.selectFrom('store_algorithm').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function functionRows(
  db: Kysely<Database>,
  algorithmIds: readonly number[],
): Promise<StoreFunctionRow[]> {
  if (algorithmIds.length === 0) return [];
  return db
    .selectFrom('store_function')
    .selectAll()
    .where('algorithm_id', 'in', algorithmIds)
    .orderBy('id')
    .execute();
}

export async function findFunction(
  db: Kysely<Database>,
  algorithmId: number,
  name: string,
): Promise<StoreFunctionRow | undefined> {
  return db
    .selectFrom('store_function')
    .selectAll()
    .where('algorithm_id', '=', algorithmId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export interface NewAlgorithm {
  name: string;
  display_name: string | null;
  description: string | null;
  image: string;
  digest: string | null;
  code_url: string;
  documentation_url: string | null;
  partitioning: string;
  vantage6_version: string;
  submission_comments: string | null;
  status: string;
  developer_id: number;
  submitted_at: string;
}

const functionValues = (algorithmId: number, f: FunctionDescription) => ({
  algorithm_id: algorithmId,
  name: f.name,
  display_name: f.display_name ?? null,
  description: f.description ?? null,
  type: f.type,
  standalone: f.standalone === false ? 0 : 1,
  arguments: JSON.stringify(f.arguments ?? []),
  databases: JSON.stringify(f.databases ?? []),
  ui_visualizations: JSON.stringify(f.ui_visualizations ?? []),
  output: f.output ? JSON.stringify(f.output) : null,
});

/** Stores an algorithm with its functions, all or nothing; returns its id. */
export async function insertAlgorithm(
  db: Kysely<Database>,
  values: NewAlgorithm,
  functions: readonly FunctionDescription[],
): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto('store_algorithm')
      .values(values)
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .insertInto('store_function')
      .values(functions.map((f) => functionValues(row.id, f)))
      .execute();
    return row.id;
  });
}

/** Changes an algorithm's fields and, when given, replaces its functions, all or nothing. */
export async function updateAlgorithm(
  db: Kysely<Database>,
  id: number,
  values: Partial<NewAlgorithm>,
  functions?: readonly FunctionDescription[],
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    if (Object.keys(values).length > 0)
      await tx.updateTable('store_algorithm').set(values).where('id', '=', id).execute();
    if (functions) {
      await tx.deleteFrom('store_function').where('algorithm_id', '=', id).execute();
      await tx
        .insertInto('store_function')
        .values(functions.map((f) => functionValues(id, f)))
        .execute();
    }
  });
}

/** Sets an algorithm's status (and times) only while it still has one of `from`; false when it had another. */
export async function moveAlgorithm(
  db: Kysely<Database>,
  id: number,
  from: readonly string[],
  values: { status: string; approved_at?: string; invalidated_at?: string; replaced_by_id?: number },
): Promise<boolean> {
  const r = await db
    .updateTable('store_algorithm')
    .set(values)
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function deleteAlgorithm(db: Kysely<Database>, id: number): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    await tx.deleteFrom('store_review').where('algorithm_id', '=', id).execute();
    await tx.deleteFrom('store_function').where('algorithm_id', '=', id).execute();
    const r = await tx.deleteFrom('store_algorithm').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  });
}

// Users and their store roles

export async function findStoreUser(
  db: Kysely<Database>,
  serverUrl: string,
  username: string,
): Promise<StoreUserRow | undefined> {
  return db
    .selectFrom('store_user')
    .selectAll()
    .where('server_url', '=', serverUrl)
    .where('username', '=', username)
    .executeTakeFirst();
}

export async function storeUserById(db: Kysely<Database>, id: number): Promise<StoreUserRow | undefined> {
  return db.selectFrom('store_user').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function storeUserRows(db: Kysely<Database>, ids?: readonly number[]): Promise<StoreUserRow[]> {
  let q = db.selectFrom('store_user').selectAll().orderBy('id');
  if (ids) q = q.where('id', 'in', ids.length ? ids : [-1]);
  return q.execute();
}

/** Records a user (or updates what the server says of them), keeping their roles unless `roles` is given. */
export async function upsertStoreUser(
  db: Kysely<Database>,
  user: { server_url: string; username: string; organization_id: number | null; email: string | null },
  roles?: readonly string[],
): Promise<StoreUserRow> {
  const existing = await findStoreUser(db, user.server_url, user.username);
  if (existing) {
    const set = {
      organization_id: user.organization_id,
      email: user.email,
      ...(roles ? { roles: JSON.stringify(roles) } : {}),
    };
    await db.updateTable('store_user').set(set).where('id', '=', existing.id).execute();
    return { ...existing, ...set };
  }
  return db
    .insertInto('store_user')
    .values({ ...user, roles: JSON.stringify(roles ?? []) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setStoreUserRoles(
  db: Kysely<Database>,
  id: number,
  roles: readonly string[],
): Promise<void> {
  await db
    .updateTable('store_user')
    .set({ roles: JSON.stringify(roles) })
    .where('id', '=', id)
    .execute();
}

// Policies

export async function policyRows(db: Kysely<Database>): Promise<{ key: string; value: string }[]> {
  return db.selectFrom('store_policy').selectAll().execute();
}

export async function setPolicies(db: Kysely<Database>, values: Record<string, string>): Promise<void> {
  await db.transaction().execute(async (tx) => {
    for (const [key, value] of Object.entries(values))
      await tx
        .insertInto('store_policy')
        .values({ key, value })
        .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
        .execute();
  });
}

// The stores linked to a server

export async function linkedStoreRows(
  db: Kysely<Database>,
): Promise<{ id: number; name: string; url: string; collaboration_id: number | null }[]> {
  return db.selectFrom('algorithm_store').selectAll().orderBy('id').execute();
}

export async function findLinkedStore(
  db: Kysely<Database>,
  id: number,
): Promise<{ id: number; name: string; url: string; collaboration_id: number | null } | undefined> {
  return db.selectFrom('algorithm_store').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertLinkedStore(
  db: Kysely<Database>,
  values: { name: string; url: string; collaboration_id: number | null },
): Promise<number> {
  const row = await db.insertInto('algorithm_store').values(values).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteLinkedStore(db: Kysely<Database>, id: number): Promise<boolean> {
  const r = await db.deleteFrom('algorithm_store').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Runs several store repository functions as one transaction (a review step changes reviews and algorithms). */
export async function inStoreTransaction<T>(
  db: Kysely<Database>,
  steps: (tx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(steps);
}

/** The approved algorithms other than `id`, with their images. */
export async function approvedImages(
  db: Kysely<Database>,
  id: number,
): Promise<{ id: number; image: string }[]> {
  return db
    .selectFrom('store_algorithm')
    .select(['id', 'image'])
    .where('status', '=', 'approved')
    .where('id', '!=', id)
    .execute();
}
