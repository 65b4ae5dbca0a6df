import type { Kysely } from 'kysely';
import { ApiError, notFound } from '../errors.js';
import type { Database } from '../db/schema.js';
import type { StoreAlgorithmRow, StoreReviewRow } from '../db/store-schema.js';
import { nowStored } from '../http/datetime.js';
import {
  approvedImages,
  inStoreTransaction,
  findAlgorithm,
  moveAlgorithm,
  storeUserById,
} from '../repositories/store.js';
import {
  approvals,
  dropOpenReviews,
  findReview,
  finishReview,
  insertReview,
  reviewRows,
} from '../repositories/store-review.js';
import { readPolicies, type StorePolicies } from './policies.js';
import { storedRoles } from './roles.js';
import type { StoreCaller, StoreContext } from './context.js';
import { requireRole } from './caller.js';
import { ALGORITHM_STATUS, REVIEW_STATUS } from './status.js';

/**
 * The review rules (docs/store.md#reviewers-and-store-managers): store managers assign reviewers who hold the reviewer role; an
 * author reviews their own algorithm only where the policy allows; an image without a digest is never approved;
 * an algorithm is approved once every assigned review approved it and the approvals reach the policy's number of
 * reviewers from its number of organizations; one rejection rejects it. Approving a version replaces the approved
 * versions of the same image, which stay in the history. Every step goes to the audit log.
 */

const IN_REVIEW: readonly string[] = [ALGORITHM_STATUS.awaiting, ALGORITHM_STATUS.underReview];

async function audit(sctx: StoreContext, event: string, fields: Record<string, unknown>): Promise<void> {
  if (sctx.audit) await sctx.audit.record(event, fields);
}

function ownRefused(policies: StorePolicies, algorithm: StoreAlgorithmRow, reviewerId: number): boolean {
  return !policies.assign_review_own_algorithm && algorithm.developer_id === reviewerId;
}

export async function assignReviewer(
  sctx: StoreContext,
  caller: StoreCaller,
  body: { algorithm_id: number; reviewer_id: number },
): Promise<StoreReviewRow> {
  requireRole(caller, 'store manager', 'assign reviewers');
  const algorithm = await findAlgorithm(sctx.db, body.algorithm_id);
  if (!algorithm) throw notFound('Algorithm', body.algorithm_id);
  if (!IN_REVIEW.includes(algorithm.status))
    throw new ApiError(
      'review_refused',
      `Algorithm ${algorithm.id} is ${algorithm.status}: it is not in review`,
    );
  const reviewer = await storeUserById(sctx.db, body.reviewer_id);
  if (!reviewer) throw notFound('Store user', body.reviewer_id);
  const reviewerRoles = storedRoles(reviewer.roles);
  const managed = sctx.managers.some(
    (m) => m.server_url === reviewer.server_url && m.username === reviewer.username,
  );
  if (!managed && !reviewerRoles.includes('reviewer') && !reviewerRoles.includes('store manager'))
    throw new ApiError('review_refused', `User ${reviewer.username} does not hold the store role 'reviewer'`);
  const policies = await readPolicies(sctx.db);
  if (ownRefused(policies, algorithm, reviewer.id))
    throw new ApiError(
      'review_refused',
      `The store's policy (assign_review_own_algorithm) forbids ${reviewer.username} to review their own algorithm`,
    );
  const earlier = await reviewRows(sctx.db, { algorithm_id: algorithm.id, reviewer_id: reviewer.id });
  if (earlier.some((r) => r.status === REVIEW_STATUS.underReview || r.status === REVIEW_STATUS.approved))
    throw new ApiError(
      'conflict',
      `User ${reviewer.username} is already a reviewer of algorithm ${algorithm.id}`,
    );
  const review = await inStoreTransaction(sctx.db, async (tx) => {
    const created = await insertReview(tx, {
      algorithm_id: algorithm.id,
      reviewer_id: reviewer.id,
      requested_by_id: caller.user.id,
      requested_at: nowStored(),
      status: REVIEW_STATUS.underReview,
    });
    await moveAlgorithm(tx, algorithm.id, [ALGORITHM_STATUS.awaiting], {
      status: ALGORITHM_STATUS.underReview,
    });
    return created;
  });
  await audit(sctx, 'store.review.assigned', {
    review_id: review.id,
    algorithm_id: algorithm.id,
    reviewer: reviewer.username,
    by: caller.user.username,
  });
  return review;
}

/** The outcome of a review step: the algorithm's status after it, and what approval still needs. */
export interface ReviewOutcome {
  review: StoreReviewRow;
  algorithm_status: string;
  still_needed?: string;
  replaced?: number[];
}

async function openReviewOf(
  sctx: StoreContext,
  caller: StoreCaller,
  reviewId: number,
): Promise<{ review: StoreReviewRow; algorithm: StoreAlgorithmRow }> {
  const review = await findReview(sctx.db, reviewId);
  if (!review) throw notFound('Review', reviewId);
  if (review.reviewer_id !== caller.user.id)
    throw new ApiError('forbidden', `Only the assigned reviewer finishes review ${review.id}`);
  if (review.status !== REVIEW_STATUS.underReview)
    throw new ApiError('review_refused', `Review ${review.id} is ${review.status}, no longer open`);
  const algorithm = await findAlgorithm(sctx.db, review.algorithm_id);
  if (!algorithm) throw notFound('Algorithm', review.algorithm_id);
  if (algorithm.status !== ALGORITHM_STATUS.underReview)
    throw new ApiError(
      'review_refused',
      `Algorithm ${algorithm.id} is ${algorithm.status}: it is not under review`,
    );
  const policies = await readPolicies(sctx.db);
  if (ownRefused(policies, algorithm, caller.user.id))
    throw new ApiError(
      'review_refused',
      "The store's policy (assign_review_own_algorithm) forbids reviewing your own algorithm",
    );
  return { review, algorithm };
}

export async function approveReview(
  sctx: StoreContext,
  caller: StoreCaller,
  reviewId: number,
  comment: string | null,
): Promise<ReviewOutcome> {
  const { review, algorithm } = await openReviewOf(sctx, caller, reviewId);
  if (!algorithm.digest)
    throw new ApiError(
      'image_not_pinned',
      `Algorithm ${algorithm.id}'s image ${algorithm.image} has no digest: its author pins it (image@sha256:…) before it can be approved`,
    );
  const policies = await readPolicies(sctx.db);
  const at = nowStored();
  const outcome = await inStoreTransaction(sctx.db, async (tx) => {
    if (!(await finishReview(tx, review.id, { status: REVIEW_STATUS.approved, comment, submitted_at: at })))
      throw new ApiError('review_refused', `Review ${review.id} is no longer open`);
    const missing = await stillNeeded(tx, algorithm.id, policies);
    if (missing)
      return { algorithm_status: ALGORITHM_STATUS.underReview, still_needed: missing, replaced: [] };
    await moveAlgorithm(tx, algorithm.id, [ALGORITHM_STATUS.underReview], {
      status: ALGORITHM_STATUS.approved,
      approved_at: at,
    });
    const replaced: number[] = [];
    for (const old of await otherApprovedVersions(tx, algorithm))
      if (
        await moveAlgorithm(tx, old, [ALGORITHM_STATUS.approved], {
          status: ALGORITHM_STATUS.replaced,
          invalidated_at: at,
          replaced_by_id: algorithm.id,
        })
      )
        replaced.push(old);
    return { algorithm_status: ALGORITHM_STATUS.approved, replaced };
  });
  await audit(sctx, 'store.review.approved', {
    review_id: review.id,
    algorithm_id: algorithm.id,
    reviewer: caller.user.username,
  });
  if (outcome.algorithm_status === ALGORITHM_STATUS.approved) {
    await audit(sctx, 'store.algorithm.approved', {
      algorithm_id: algorithm.id,
      image: algorithm.image,
      digest: algorithm.digest,
    });
    for (const old of outcome.replaced)
      await audit(sctx, 'store.algorithm.replaced', { algorithm_id: old, replaced_by: algorithm.id });
  }
  return { review: { ...review, status: REVIEW_STATUS.approved, comment, submitted_at: at }, ...outcome };
}

export async function rejectReview(
  sctx: StoreContext,
  caller: StoreCaller,
  reviewId: number,
  comment: string,
): Promise<ReviewOutcome> {
  const { review, algorithm } = await openReviewOf(sctx, caller, reviewId);
  const at = nowStored();
  await inStoreTransaction(sctx.db, async (tx) => {
    if (!(await finishReview(tx, review.id, { status: REVIEW_STATUS.rejected, comment, submitted_at: at })))
      throw new ApiError('review_refused', `Review ${review.id} is no longer open`);
    await moveAlgorithm(tx, algorithm.id, [ALGORITHM_STATUS.underReview], {
      status: ALGORITHM_STATUS.rejected,
      invalidated_at: at,
    });
    await dropOpenReviews(tx, algorithm.id, at);
  });
  await audit(sctx, 'store.review.rejected', {
    review_id: review.id,
    algorithm_id: algorithm.id,
    reviewer: caller.user.username,
    comment,
  });
  await audit(sctx, 'store.algorithm.rejected', { algorithm_id: algorithm.id });
  return {
    review: { ...review, status: REVIEW_STATUS.rejected, comment, submitted_at: at },
    algorithm_status: ALGORITHM_STATUS.rejected,
  };
}

/** What approval still needs (open reviews, reviewers, organizations), or null when it is complete. */
async function stillNeeded(
  db: Kysely<Database>,
  algorithmId: number,
  policies: StorePolicies,
): Promise<string | null> {
  const open = (await reviewRows(db, { algorithm_id: algorithmId, status: REVIEW_STATUS.underReview }))
    .length;
  const approved = await approvals(db, algorithmId);
  const organizations = new Set(
    approved.map((a) => `${a.server_url}#${a.organization_id ?? `user${a.reviewer_id}`}`),
  );
  const needs: string[] = [];
  if (open > 0) needs.push(`${open} open review(s) to finish`);
  if (approved.length < policies.min_reviewers)
    needs.push(
      `${policies.min_reviewers - approved.length} more approving reviewer(s) (min_reviewers ${policies.min_reviewers})`,
    );
  if (organizations.size < policies.min_reviewing_organizations)
    needs.push(
      `reviewers from ${policies.min_reviewing_organizations - organizations.size} more organization(s) (min_reviewing_organizations ${policies.min_reviewing_organizations})`,
    );
  return needs.length > 0 ? needs.join('; ') : null;
}

/** The other approved versions of the same image repository (any tag): a newly approved version replaces them. */
async function otherApprovedVersions(db: Kysely<Database>, algorithm: StoreAlgorithmRow): Promise<number[]> {
  const repository = imageRepository(algorithm.image);
  const rows = await approvedImages(db, algorithm.id);
  return rows.filter((r) => imageRepository(r.image) === repository).map((r) => r.id);
}

/** An image without its tag: `registry:5000/org/name:1.2` → `registry:5000/org/name`. */
export function imageRepository(image: string): string {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? image.slice(0, colon) : image;
}

/** Takes an algorithm out of use (a store manager's decision): its open reviews are dropped. */
export async function invalidateAlgorithm(
  sctx: StoreContext,
  caller: StoreCaller,
  id: number,
): Promise<StoreAlgorithmRow> {
  requireRole(caller, 'store manager', 'invalidate algorithms');
  const algorithm = await findAlgorithm(sctx.db, id);
  if (!algorithm) throw notFound('Algorithm', id);
  const at = nowStored();
  const moved = await inStoreTransaction(sctx.db, async (tx) => {
    const done = await moveAlgorithm(tx, id, [...IN_REVIEW, ALGORITHM_STATUS.approved], {
      status: ALGORITHM_STATUS.removed,
      invalidated_at: at,
    });
    if (done) await dropOpenReviews(tx, id, at);
    return done;
  });
  if (!moved)
    throw new ApiError('review_refused', `Algorithm ${id} is ${algorithm.status}: it is already out of use`);
  await audit(sctx, 'store.algorithm.invalidated', { algorithm_id: id, by: caller.user.username });
  return { ...algorithm, status: ALGORITHM_STATUS.removed, invalidated_at: at };
}
