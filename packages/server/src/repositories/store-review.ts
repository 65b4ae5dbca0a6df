import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { StoreReviewRow } from '../db/store-schema.js';

/** Data access for the reviews of the algorithm store (docs/store.md). */

export async function reviewRows(
  db: Kysely<Database>,
  filter: {
    algorithm_id?: number | undefined;
    reviewer_id?: number | undefined;
    status?: string | undefined;
  },
): Promise<StoreReviewRow[]> {
  let q = db.selectFrom('store_review').selectAll().orderBy('id');
  if (filter.algorithm_id !== undefined) q = q.where('algorithm_id', '=', filter.algorithm_id);
  if (filter.reviewer_id !== undefined) q = q.where('reviewer_id', '=', filter.reviewer_id);
  if (filter.status !== undefined) q = q.where('status', '=', filter.status);
  return q.execute();
}

export async function findReview(db: Kysely<Database>, id: number): Promise<StoreReviewRow | undefined> {
  return db.selectFrom('store_review').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertReview(
  db: Kysely<Database>,
  values: {
    algorithm_id: number;
    reviewer_id: number;
    requested_by_id: number;
    requested_at: string;
    status: string;
  },
): Promise<StoreReviewRow> {
  return db.insertInto('store_review').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Finishes an open review; false when it was no longer open. */
export async function finishReview(
  db: Kysely<Database>,
  id: number,
  values: { status: string; comment: string | null; submitted_at: string },
): Promise<boolean> {
  const r = await db
    .updateTable('store_review')
    .set(values)
    .where('id', '=', id)
    .where('status', '=', 'under review')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Drops the open reviews of an algorithm taken out of review. */
export async function dropOpenReviews(db: Kysely<Database>, algorithmId: number, at: string): Promise<void> {
  await db
    .updateTable('store_review')
    .set({ status: 'dropped', submitted_at: at })
    .where('algorithm_id', '=', algorithmId)
    .where('status', '=', 'under review')
    .execute();
}

/** The approving reviews of an algorithm with their reviewers' organizations. */
export async function approvals(
  db: Kysely<Database>,
  algorithmId: number,
): Promise<{ reviewer_id: number; server_url: string; organization_id: number | null }[]> {
  return db
    .selectFrom('store_review')
    .innerJoin('store_user', 'store_user.id', 'store_review.reviewer_id')
    .select(['store_review.reviewer_id', 'store_user.server_url', 'store_user.organization_id'])
    .where('store_review.algorithm_id', '=', algorithmId)
    .where('store_review.status', '=', 'approved')
    .execute();
}

export async function deleteReview(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('store_review').where('id', '=', id).execute();
}
