import type { Caller } from '../auth/caller.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import type { AppContext } from '../context.js';
import { findCollaboration } from '../repositories/collaboration.js';
import { findAlgorithm, functionRows } from '../repositories/store.js';
import { askLinkedStore, isAlgorithm, linkedStore } from './linked.js';
import { ArgumentError, checkArguments } from './arguments.js';
import type { ArgumentDescription } from './description.js';
import { algorithmAnswer } from './serialize.js';
import { ALGORITHM_STATUS } from './status.js';

/**
 * A task that names a store algorithm instead of a bare image (docs/store.md#researchers): the algorithm must be
 * approved and pinned; the task runs its image at the approved digest; in a collaboration that is not encrypted,
 * each organization's input is read and its method and keyword arguments checked against the function's
 * description before the task is accepted (encrypted input is for the nodes alone to read).
 */

type Described = ReturnType<typeof algorithmAnswer>;

export interface TaskAlgorithm {
  /** `image@sha256:…`: what the nodes pull and run. */
  image: string;
  store_algorithm_id: number;
  algorithm_store_id: number | null;
  /**
   * The input of each organization whose input was read, with `master` set as the function's type says (true for
   * a central function, false for a federated one): the algorithm's wrapper calls the central entry point only
   * for a master run, so a central function sent without the flag would run as its `RPC_` part, or not at all.
   */
  inputs: ReadonlyMap<number, string | Record<string, unknown>>;
}

export interface TaskAlgorithmRequest {
  collaboration_id: number;
  image?: string | null | undefined;
  store_algorithm_id: number;
  algorithm_store_id?: number | undefined;
  organizations: readonly { id: number; input: string | Record<string, unknown> }[];
}

/**
 * The algorithm as its store describes it: the one inside this server, or a linked store asked over HTTP. A
 * linked store must serve the task's collaboration: it is linked to every collaboration, or to that one.
 */
async function describedAlgorithm(
  ctx: AppContext,
  caller: Caller,
  storeId: number | undefined,
  id: number,
  collaborationId: number,
): Promise<Described> {
  if (storeId === undefined) {
    const row = await findAlgorithm(ctx.dbh.db, id);
    if (!row) throw notFound('Store algorithm', id);
    return algorithmAnswer(row, await functionRows(ctx.dbh.db, [id]), ctx.config.algorithm_store.path);
  }
  const store = await linkedStore(ctx, storeId, caller);
  if (store.collaboration_id !== null && store.collaboration_id !== collaborationId)
    throw badRequest(
      `The algorithm store '${store.name}' is linked to collaboration ${store.collaboration_id} only, not to collaboration ${collaborationId}: choose an algorithm of a store this collaboration uses (GET /algorithmstore?collaboration_id=${collaborationId}).`,
    );
  const body = await askLinkedStore(ctx, store, `/algorithm/${id}`, 'the task was not created');
  if (!isAlgorithm(body))
    throw new ApiError(
      'store_unreachable',
      `The algorithm store '${store.name}' (${store.url}) did not describe algorithm ${id}; the task was not created.`,
    );
  return body as unknown as Described;
}

/** The method and keyword arguments of a plain input (`json.` + JSON, or JSON), base64-encoded. */
function readInput(
  input: string | Record<string, unknown>,
  organizationId: number,
): { method: unknown; kwargs: unknown; parsed: Record<string, unknown> } {
  const refuse = () =>
    new ApiError(
      'invalid_argument',
      `The input for organization ${organizationId} is not JSON with a method and kwargs; a store algorithm's task input is checked against its function and must be readable (JSON, not pickle).`,
    );
  if (typeof input !== 'string') return { method: input.method, kwargs: input.kwargs, parsed: input };
  let text: string;
  try {
    text = Buffer.from(input, 'base64').toString('utf8');
  } catch {
    throw refuse();
  }
  if (text.startsWith('json.')) text = text.slice(5);
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw refuse();
    return { method: parsed.method, kwargs: parsed.kwargs ?? {}, parsed };
  } catch {
    throw refuse();
  }
}

export async function resolveTaskAlgorithm(
  ctx: AppContext,
  caller: Caller,
  body: TaskAlgorithmRequest,
): Promise<TaskAlgorithm> {
  const algorithm = await describedAlgorithm(
    ctx,
    caller,
    body.algorithm_store_id,
    body.store_algorithm_id,
    body.collaboration_id,
  );
  if (algorithm.status !== ALGORITHM_STATUS.approved)
    throw new ApiError(
      'not_allowed_input',
      `Store algorithm ${algorithm.id} (${algorithm.name}) is ${algorithm.status}, not approved: it cannot run`,
    );
  if (!algorithm.digest)
    throw new ApiError('image_not_pinned', `Store algorithm ${algorithm.id} has no digest: it cannot run`);
  const pinned = `${algorithm.image}@${algorithm.digest}`;
  if (body.image && body.image !== pinned && body.image !== algorithm.image)
    throw new ApiError(
      'validation_failed',
      `field 'image' is '${body.image}', but store algorithm ${algorithm.id} is ${pinned}; leave image out`,
      { extra: { message: { image: 'does not match the store algorithm' } } },
    );
  const collaboration = await findCollaboration(ctx.dbh.db, body.collaboration_id);
  const inputs = new Map<number, string | Record<string, unknown>>();
  if (collaboration && collaboration.encrypted === 0) {
    for (const o of body.organizations) {
      const { method, kwargs, parsed } = readInput(o.input, o.id);
      const fn = algorithm.functions.find((f) => f.name === method);
      if (!fn)
        throw new ApiError(
          'invalid_argument',
          `method ${JSON.stringify(method)} is not a function of store algorithm ${algorithm.id} (its functions: ${algorithm.functions.map((f) => f.name).join(', ')})`,
        );
      if (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs))
        throw new ApiError('invalid_argument', `the kwargs for organization ${o.id} must be an object`);
      try {
        checkArguments((fn.arguments ?? []) as ArgumentDescription[], kwargs as Record<string, unknown>);
      } catch (error) {
        if (error instanceof ArgumentError)
          throw new ApiError('invalid_argument', error.message, {
            extra: { message: { [error.argument]: error.message } },
          });
        throw error;
      }
      const master = fn.type === 'central';
      if (parsed.master !== master)
        inputs.set(
          o.id,
          typeof o.input === 'string'
            ? Buffer.from(`json.${JSON.stringify({ ...parsed, master })}`, 'utf8').toString('base64')
            : { ...parsed, master },
        );
    }
  }
  return {
    image: pinned,
    store_algorithm_id: algorithm.id,
    algorithm_store_id: body.algorithm_store_id ?? null,
    inputs,
  };
}
