import { bodyCheckedByHandler } from '../body-unchecked.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError, notFound } from '../../errors.js';
import { findAlgorithm, storeUserRows } from '../../repositories/store.js';
import { deleteReview, findReview, reviewRows } from '../../repositories/store-review.js';
import type { StoreReviewRow } from '../../db/store-schema.js';
import { requireRole, storeCaller } from '../caller.js';
import { approveReview, assignReviewer, rejectReview, type ReviewOutcome } from '../review-rules.js';
import { reviewAnswer } from '../serialize.js';
import type { StoreCaller, StoreContext } from '../context.js';
import { REVIEW_STATUS } from '../status.js';

const Id = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const Comment = Type.Object({ comment: Type.Optional(Type.String({ maxLength: 10_000 })) });

export function reviewRoutes(sctx: StoreContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = sctx.db;
    const withPeople = async (reviews: readonly StoreReviewRow[]) => {
      const ids = [...new Set(reviews.flatMap((r) => [r.reviewer_id, r.requested_by_id]))];
      const users = new Map((await storeUserRows(db, ids)).map((u) => [u.id, u]));
      return reviews.map((r) => reviewAnswer(r, users));
    };
    /** Reviewers and managers see every review; a developer those of their own algorithms. */
    const mayRead = async (caller: StoreCaller, algorithmId: number): Promise<boolean> => {
      if (caller.roles.has('reviewer') || caller.roles.has('store manager')) return true;
      return (await findAlgorithm(db, algorithmId))?.developer_id === caller.user.id;
    };
    const outcome = async (o: ReviewOutcome) => ({
      ...(await withPeople([o.review]))[0],
      algorithm_status: o.algorithm_status,
      ...(o.still_needed ? { still_needed: o.still_needed } : {}),
      ...(o.replaced && o.replaced.length > 0 ? { replaced: o.replaced } : {}),
    });

    app.get(
      '/review',
      {
        schema: {
          tags: ['store: review'],
          summary: 'List reviews',
          querystring: Type.Object({
            algorithm_id: Type.Optional(Type.Integer({ minimum: 1 })),
            reviewer_id: Type.Optional(Type.Integer({ minimum: 1 })),
            status: Type.Optional(Type.String({ maxLength: 50 })),
          }),
        },
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        const rows = await reviewRows(db, request.query);
        const visible: StoreReviewRow[] = [];
        for (const r of rows) if (await mayRead(caller, r.algorithm_id)) visible.push(r);
        return { data: await withPeople(visible), links: {} };
      },
    );

    app.get(
      '/review/:id',
      { schema: { tags: ['store: review'], summary: 'One review', params: Id } },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        const review = await findReview(db, request.params.id);
        if (!review || !(await mayRead(caller, review.algorithm_id)))
          throw notFound('Review', request.params.id);
        return (await withPeople([review]))[0];
      },
    );

    app.post(
      '/review',
      {
        schema: {
          tags: ['store: review'],
          summary: 'Assign a reviewer to an algorithm (store managers)',
          body: Type.Object({
            algorithm_id: Type.Integer({ minimum: 1 }),
            reviewer_id: Type.Integer({ minimum: 1, description: 'a store user id (GET /user)' }),
          }),
        },
      },
      async (request, reply) => {
        const caller = await storeCaller(sctx, request);
        const review = await assignReviewer(sctx, caller, request.body);
        return reply.status(201).send((await withPeople([review]))[0]);
      },
    );

    app.post(
      '/review/:id/approve',
      {
        schema: {
          tags: ['store: review'],
          summary: 'Approve, as the assigned reviewer (the body, with its comment, may be left out)',
          params: Id,
          body: Comment,
        },
        validatorCompiler: bodyCheckedByHandler,
      },
      async (request) => {
        const body: unknown = request.body;
        const comment = (body as { comment?: unknown } | null | undefined)?.comment;
        if (
          (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) ||
          (comment !== undefined && (typeof comment !== 'string' || comment.length > 10_000))
        )
          throw new ApiError(
            'validation_failed',
            "field 'comment' must be a string of at most 10000 characters",
            {
              extra: { message: { comment: 'must be a string' } },
            },
          );
        const caller = await storeCaller(sctx, request);
        return outcome(await approveReview(sctx, caller, request.params.id, comment ?? null));
      },
    );

    app.post(
      '/review/:id/reject',
      {
        schema: {
          tags: ['store: review'],
          summary: 'Reject with a comment, as the assigned reviewer',
          params: Id,
          body: Type.Object({ comment: Type.String({ minLength: 1, maxLength: 10_000 }) }),
        },
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        return outcome(await rejectReview(sctx, caller, request.params.id, request.body.comment));
      },
    );

    app.delete(
      '/review/:id',
      {
        schema: { tags: ['store: review'], summary: 'Withdraw an open review (store managers)', params: Id },
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        requireRole(caller, 'store manager', 'withdraw reviews');
        const review = await findReview(db, request.params.id);
        if (!review) throw notFound('Review', request.params.id);
        if (review.status !== REVIEW_STATUS.underReview)
          throw new ApiError(
            'review_refused',
            `Review ${review.id} is ${review.status}: only open reviews are withdrawn`,
          );
        await deleteReview(db, review.id);
        await sctx.audit?.record('store.review.withdrawn', {
          review_id: review.id,
          by: caller.user.username,
        });
        return { msg: `Review ${review.id} withdrawn` };
      },
    );
  };
}
