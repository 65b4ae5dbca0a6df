import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError, notFound } from '../../errors.js';
import { nowStored } from '../../http/datetime.js';
import { deleteAlgorithm, findAlgorithm, functionRows, updateAlgorithm } from '../../repositories/store.js';
import { dropOpenReviews } from '../../repositories/store-review.js';
import { parseAlgorithmDescription, parseImage } from '../description.js';
import { requireRole, storeCaller } from '../caller.js';
import { invalidateAlgorithm } from '../review-rules.js';
import { ALGORITHM_STATUS } from '../status.js';
import { AlgorithmInputSchema, AlgorithmSchema, algorithmAnswer, functionAnswer } from '../serialize.js';
import { bodyCheckedByHandler } from '../body-unchecked.js';
import type { StoreContext } from '../context.js';
import { NOT_FOUND_OR_HIDDEN, descriptionRefused, seesUnapproved } from './algorithm.js';

const Id = Type.Object({ id: Type.Integer({ minimum: 1 }) });

/** Changing, deleting and invalidating an algorithm. */
export function algorithmEditRoutes(sctx: StoreContext, apiPath: string): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = sctx.db;
    const one = async (id: number) => {
      const row = await findAlgorithm(db, id);
      if (!row) throw notFound(NOT_FOUND_OR_HIDDEN, id);
      return algorithmAnswer(row, await functionRows(db, [id]), apiPath);
    };

    app.patch(
      '/algorithm/:id',
      {
        schema: {
          tags: ['store: algorithm'],
          summary:
            'Change an algorithm in review (its developer or a store manager); open reviews start over',
          params: Id,
          body: Type.Partial(AlgorithmInputSchema),
          response: { 200: AlgorithmSchema },
        },
        validatorCompiler: bodyCheckedByHandler,
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        const row = await findAlgorithm(db, request.params.id);
        if (!row || !seesUnapproved(caller, row)) throw notFound(NOT_FOUND_OR_HIDDEN, request.params.id);
        if (row.developer_id !== caller.user.id)
          requireRole(caller, 'store manager', "change another's algorithm");
        if (row.status !== ALGORITHM_STATUS.awaiting && row.status !== ALGORITHM_STATUS.underReview)
          throw new ApiError(
            'review_refused',
            `Algorithm ${row.id} is ${row.status}: only algorithms in review change; submit a new version instead`,
          );
        if (typeof request.body !== 'object' || request.body === null || Array.isArray(request.body))
          throw new ApiError('validation_failed', "field 'body' must be an object");
        const current = {
          name: row.name,
          ...(row.display_name !== null ? { display_name: row.display_name } : {}),
          ...(row.description !== null ? { description: row.description } : {}),
          image: row.digest ? `${row.image}@${row.digest}` : row.image,
          partitioning: row.partitioning,
          vantage6_version: row.vantage6_version,
          code_url: row.code_url,
          ...(row.documentation_url !== null ? { documentation_url: row.documentation_url } : {}),
          ...(row.submission_comments !== null ? { submission_comments: row.submission_comments } : {}),
          functions: (await functionRows(db, [row.id])).map((f) => {
            const { id: _id, ...rest } = functionAnswer(f);
            return {
              ...rest,
              display_name: rest.display_name ?? undefined,
              description: rest.description ?? undefined,
            };
          }),
        };
        const patch = request.body as Record<string, unknown>;
        let description;
        try {
          description = parseAlgorithmDescription({ ...current, ...patch });
        } catch (error) {
          descriptionRefused(error);
        }
        const { image, digest } = parseImage(description.image);
        const at = nowStored();
        await updateAlgorithm(
          db,
          row.id,
          {
            name: description.name,
            display_name: description.display_name ?? null,
            description: description.description ?? null,
            image,
            digest,
            code_url: description.code_url,
            documentation_url: description.documentation_url ?? null,
            partitioning: description.partitioning,
            vantage6_version: description.vantage6_version,
            submission_comments: description.submission_comments ?? null,
            status: ALGORITHM_STATUS.awaiting,
          },
          'functions' in patch ? description.functions : undefined,
        );
        // What the reviewers looked at changed: their reviews start over.
        await dropOpenReviews(db, row.id, at);
        await sctx.audit?.record('store.algorithm.updated', {
          algorithm_id: row.id,
          fields: Object.keys(patch),
          image,
          digest,
          by: caller.user.username,
        });
        return one(row.id);
      },
    );

    app.delete(
      '/algorithm/:id',
      {
        schema: {
          tags: ['store: algorithm'],
          summary: 'Delete an algorithm (a store manager, or its developer before approval)',
          params: Id,
        },
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        const row = await findAlgorithm(db, request.params.id);
        if (!row || !seesUnapproved(caller, row)) throw notFound(NOT_FOUND_OR_HIDDEN, request.params.id);
        const own = row.developer_id === caller.user.id && row.status !== ALGORITHM_STATUS.approved;
        if (!own) requireRole(caller, 'store manager', 'delete this algorithm');
        await deleteAlgorithm(db, row.id);
        await sctx.audit?.record('store.algorithm.deleted', {
          algorithm_id: row.id,
          by: caller.user.username,
        });
        return { msg: `Algorithm ${row.id} deleted` };
      },
    );

    app.post(
      '/algorithm/:id/invalidate',
      {
        schema: {
          tags: ['store: algorithm'],
          summary: 'Take an algorithm out of use (store managers)',
          params: Id,
        },
      },
      async (request) => {
        const caller = await storeCaller(sctx, request);
        const row = await invalidateAlgorithm(sctx, caller, request.params.id);
        return { msg: `Algorithm ${row.id} is invalidated`, status: row.status };
      },
    );
  };
}
