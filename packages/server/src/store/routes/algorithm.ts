import { bodyCheckedByHandler } from '../body-unchecked.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError, notFound } from '../../errors.js';
import { nowStored } from '../../http/datetime.js';
import {
  algorithmIds,
  algorithmRows,
  findAlgorithm,
  functionRows,
  insertAlgorithm,
  type AlgorithmFilter,
} from '../../repositories/store.js';
import type { StoreAlgorithmRow } from '../../db/store-schema.js';
import { DescriptionError, parseAlgorithmDescription, parseImage } from '../description.js';
import { callerKey, optionalStoreCaller, requireRole, storeCaller } from '../caller.js';
import { readPolicies } from '../policies.js';
import { ALGORITHM_STATUS, ALGORITHM_STATUSES } from '../status.js';
import {
  AlgorithmInputSchema,
  AlgorithmSchema,
  FunctionSchema,
  algorithmAnswer,
  functionAnswer,
} from '../serialize.js';
import { StorePageQuery, storePage } from '../paging.js';
import type { StoreCaller, StoreContext } from '../context.js';

/** A description refused field by field: `validation_failed`, naming the field. */
export function descriptionRefused(error: unknown): never {
  if (error instanceof DescriptionError)
    throw new ApiError('validation_failed', error.message, {
      extra: { message: { [error.field]: error.problem } },
    });
  throw error;
}

const Id = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const Flag = Type.Optional(Type.Boolean());
const LIST_QUERY = Type.Object({
  ...StorePageQuery,
  name: Type.Optional(Type.String({ maxLength: 200, description: 'SQL LIKE pattern' })),
  display_name: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.Optional(Type.String({ maxLength: 200 })),
  partitioning: Type.Optional(Type.String({ maxLength: 50 })),
  vantage6_version: Type.Optional(Type.String({ maxLength: 50 })),
  image: Type.Optional(
    Type.String({ maxLength: 600, description: 'the image, with @sha256:… to match a digest' }),
  ),
  search: Type.Optional(
    Type.String({ maxLength: 200, description: 'words in the name, display name or description' }),
  ),
  status: Type.Optional(Type.String({ description: 'one status, or `all`' })),
  awaiting_reviewer_assignment: Flag,
  under_review: Flag,
  in_review_process: Flag,
  invalidated: Flag,
  developer_id: Type.Optional(Type.Integer({ minimum: 1 })),
});

export const NOT_FOUND_OR_HIDDEN = 'Algorithm';

/**
 * What every reader may see: approved versions, and those replaced since. A replaced version was approved once;
 * the tasks that ran it keep showing its functions and result views (docs/store.md#result-views).
 */
const SEEN_BY_ALL: readonly string[] = [ALGORITHM_STATUS.approved, ALGORITHM_STATUS.replaced];
const seenBy = (caller: StoreCaller | null, a: StoreAlgorithmRow): boolean =>
  SEEN_BY_ALL.includes(a.status) || seesUnapproved(caller, a);

/** Whether `caller` may see an algorithm that is not approved: reviewers, managers and its developer. */
export const seesUnapproved = (caller: StoreCaller | null, a?: StoreAlgorithmRow): boolean =>
  caller !== null &&
  (caller.roles.has('reviewer') ||
    caller.roles.has('store manager') ||
    (a !== undefined && a.developer_id === caller.user.id));

export function algorithmRoutes(sctx: StoreContext, apiPath: string): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = sctx.db;
    const answers = async (ids: readonly number[]) => {
      const [rows, functions] = await Promise.all([algorithmRows(db, ids), functionRows(db, ids)]);
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.flatMap((id) => {
        const row = byId.get(id);
        return row ? [algorithmAnswer(row, functions, apiPath)] : [];
      });
    };
    const one = async (id: number) => {
      const found = (await answers([id]))[0];
      if (!found) throw notFound(NOT_FOUND_OR_HIDDEN, id);
      return found;
    };

    /**
     * The caller, who must be known when the store does not show approved algorithms to everyone. `sameForAll`: the
     * answer does not depend on who asks (the public approved catalogue), so a token this store checked in full
     * before, and that has not expired, is not checked again: a kept page then goes out with no query at all. A
     * token revoked since gets no more than anyone without a token gets.
     */
    const reader = async (request: Parameters<typeof storeCaller>[1], sameForAll = false) => {
      const cache = sctx.cache;
      const policies = cache
        ? await cache.policies(await cache.version(request), () => readPolicies(db))
        : await readPolicies(db);
      if (policies.algorithm_view !== 'public') return storeCaller(sctx, request);
      if (sameForAll && cache?.checkedBefore(callerKey(request))) return null;
      return optionalStoreCaller(sctx, request);
    };

    app.get(
      '/algorithm',
      {
        schema: {
          tags: ['store: algorithm'],
          summary: 'List algorithms: approved ones unless a status is asked for; search, filters, pages',
          querystring: LIST_QUERY,
          response: {
            200: Type.Object({
              data: Type.Array(AlgorithmSchema),
              links: Type.Record(Type.String(), Type.String()),
            }),
          },
        },
      },
      async (request, reply) => {
        const q = request.query;
        const caller = await reader(
          request,
          (q.status === undefined || q.status === ALGORITHM_STATUS.approved) &&
            !q.awaiting_reviewer_assignment &&
            !q.under_review &&
            !q.in_review_process &&
            !q.invalidated,
        );
        const asked = [
          q.awaiting_reviewer_assignment,
          q.under_review,
          q.invalidated,
          q.in_review_process,
        ].filter(Boolean);
        if (asked.length > 1)
          throw new ApiError(
            'bad_request',
            'Ask for one of awaiting_reviewer_assignment, under_review, in_review_process or invalidated',
          );
        if (q.status !== undefined && q.status !== 'all' && !ALGORITHM_STATUSES.includes(q.status))
          throw new ApiError(
            'validation_failed',
            `query parameter 'status' must be one of: all, ${ALGORITHM_STATUSES.join(', ')}`,
            {
              extra: { message: { status: 'is not a status' } },
            },
          );
        let statuses: readonly string[] | null = [ALGORITHM_STATUS.approved];
        if (q.awaiting_reviewer_assignment) statuses = [ALGORITHM_STATUS.awaiting];
        else if (q.under_review) statuses = [ALGORITHM_STATUS.underReview];
        else if (q.in_review_process) statuses = [ALGORITHM_STATUS.awaiting, ALGORITHM_STATUS.underReview];
        else if (q.invalidated) statuses = null;
        else if (q.status === 'all') statuses = null;
        else if (q.status !== undefined) statuses = [q.status];
        const onlyApproved =
          statuses?.length === 1 && statuses[0] === ALGORITHM_STATUS.approved && !q.invalidated;
        const filter: AlgorithmFilter = {
          statuses,
          invalidated: q.invalidated ?? false,
          name: q.name,
          display_name: q.display_name,
          description: q.description,
          partitioning: q.partitioning,
          vantage6_version: q.vantage6_version,
          search: q.search,
          developer_id: q.developer_id,
        };
        const seenByAll = statuses !== null && statuses.every((x) => SEEN_BY_ALL.includes(x));
        if (!seenByAll && !seesUnapproved(caller)) {
          // Developers see their own algorithms in every status; others only approved ones.
          if (!caller)
            throw new ApiError('missing_authorization', 'Log in to see algorithms that are not approved');
          filter.developer_id = caller.user.id;
        }
        if (q.image !== undefined) {
          try {
            const { image, digest } = parseImage(q.image);
            filter.image = image;
            if (digest) filter.digest = digest;
          } catch (error) {
            descriptionRefused(error);
          }
        }
        // The approved catalogue reads the same for everyone: its pages are kept while the database is unchanged.
        if (!onlyApproved) return storePage(db, request, reply, algorithmIds(db, filter), answers);
        const version = await sctx.cache?.version(request);
        let page = sctx.cache?.page(version, request.url);
        if (!page) {
          let total = 0;
          const answer = await storePage(db, request, reply, algorithmIds(db, filter), answers, (n) => {
            total = n;
          });
          page = { body: JSON.stringify(answer), total };
          sctx.cache?.keepPage(version, request.url, page);
        }
        return (
          reply
            .header('total-count', String(page.total))
            .type('application/json; charset=utf-8')
            // Written already: a string typed as JSON goes out as it is, past the response schema.
            .send(page.body as never)
        );
      },
    );

    app.get(
      '/algorithm/:id',
      {
        schema: {
          tags: ['store: algorithm'],
          summary: 'One algorithm with its functions',
          params: Id,
          response: { 200: AlgorithmSchema },
        },
      },
      async (request) => {
        const row = await findAlgorithm(db, request.params.id);
        const caller = await reader(request);
        if (!row || !seenBy(caller, row)) throw notFound(NOT_FOUND_OR_HIDDEN, request.params.id);
        return one(row.id);
      },
    );

    app.get(
      '/algorithm/:id/function',
      {
        schema: {
          tags: ['store: algorithm'],
          summary: "An algorithm's functions",
          params: Id,
          response: { 200: Type.Array(FunctionSchema) },
        },
      },
      async (request) => {
        const row = await findAlgorithm(db, request.params.id);
        const caller = await reader(request);
        if (!row || !seenBy(caller, row)) throw notFound(NOT_FOUND_OR_HIDDEN, request.params.id);
        return (await functionRows(db, [row.id])).map(functionAnswer);
      },
    );

    app.get(
      '/algorithm/:id/function/:name',
      {
        schema: {
          tags: ['store: algorithm'],
          summary: 'One function of an algorithm: its arguments, databases and visualizations',
          params: Type.Object({ id: Type.Integer({ minimum: 1 }), name: Type.String({ maxLength: 200 }) }),
          response: { 200: FunctionSchema },
        },
      },
      async (request) => {
        const row = await findAlgorithm(db, request.params.id);
        const caller = await reader(request);
        if (!row || !seenBy(caller, row)) throw notFound(NOT_FOUND_OR_HIDDEN, request.params.id);
        const f = (await functionRows(db, [row.id])).find((x) => x.name === request.params.name);
        if (!f) throw notFound('Function', request.params.name);
        return functionAnswer(f);
      },
    );

    app.post(
      '/algorithm',
      {
        schema: {
          tags: ['store: algorithm'],
          summary: "Submit an algorithm from its author's description (vantage6's store JSON)",
          body: AlgorithmInputSchema,
          response: { 201: AlgorithmSchema },
        },
        // The description is checked field by field below, naming the field in each refusal.
        validatorCompiler: bodyCheckedByHandler,
      },
      async (request, reply) => {
        const caller = await storeCaller(sctx, request);
        requireRole(caller, 'developer', 'submit algorithms');
        let description;
        try {
          description = parseAlgorithmDescription(request.body);
        } catch (error) {
          descriptionRefused(error);
        }
        const { image, digest } = parseImage(description.image);
        const id = await insertAlgorithm(
          db,
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
            developer_id: caller.user.id,
            submitted_at: nowStored(),
          },
          description.functions,
        );
        await sctx.audit?.record('store.algorithm.submitted', {
          algorithm_id: id,
          name: description.name,
          image,
          digest,
          by: caller.user.username,
          server: caller.user.server_url,
        });
        return reply.status(201).send(await one(id));
      },
    );
  };
}
