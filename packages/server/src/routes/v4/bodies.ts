/**
 * Request bodies and query parameters on the vantage6 4.x surface (docs/vantage6-4.md#input): a field or parameter
 * the route does not know is a 400 naming it (4.x's own schemas refuse them; Federa's 3.x routes ignore them, as
 * 3.x did), and 4.x's forms of a task's fields become the ones the shared handler reads.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.js';
import { findStudy } from '../../repositories/study.js';
import { blobInputs } from './blob-inputs.js';
import { blobResult } from './blob-results.js';

type Obj = Record<string, unknown>;

const invalid = (field: string, text: string): ApiError =>
  new ApiError('validation_failed', `field '${field}' ${text}`, { extra: { message: { [field]: text } } });

/** Query parameters every 4.x listing takes beside the route's own. */
const LISTING_PARAMETERS = new Set(['page', 'per_page', 'include']);

/** The names a route's schema part (`body`, `querystring`) declares; undefined when it declares none. */
function declared(request: FastifyRequest, part: 'body' | 'querystring'): Set<string> | undefined {
  const schema = (request.routeOptions.schema as Obj | undefined)?.[part] as { properties?: Obj } | undefined;
  return schema?.properties ? new Set(Object.keys(schema.properties)) : undefined;
}

/** 4.x's `databases` entry `{label, query, sheet_name, …}` as `{label, type, parameters}`. */
function database(entry: unknown, index: number): unknown {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
  const { label, type, parameters, ...rest } = entry as Obj;
  if (parameters !== undefined && (parameters === null || typeof parameters !== 'object'))
    throw invalid(`databases[${index}].parameters`, 'must be an object');
  const merged = { ...rest, ...((parameters as Obj | undefined) ?? {}) };
  return {
    label,
    ...(type !== undefined ? { type } : {}),
    ...(Object.keys(merged).length > 0 ? { parameters: merged } : {}),
  };
}

/**
 * `POST /task` as 4.x's client sends it, in the form the shared handler reads: a task scoped to a study without
 * `collaboration_id` is made in the study's collaboration (an unknown study is refused by the handler).
 */
async function fourTask(request: FastifyRequest, body: Obj): Promise<void> {
  if (body.study_id === null) delete body.study_id;
  if (body.collaboration_id === undefined && typeof body.study_id === 'number') {
    const study = await findStudy(request.server.ctx.dbh.db, body.study_id);
    if (study) body.collaboration_id = study.collaboration_id;
  }
  // The store an image came from and the server's own URL tell a 4.x server where to check the algorithm; Federa
  // checks a task's algorithm by its store_algorithm_id (docs/store.md).
  for (const field of ['store_id', 'server_url']) delete body[field];
  if (typeof body.databases === 'string') body.databases = [{ label: body.databases }];
  else if (body.databases === null) delete body.databases;
  else if (Array.isArray(body.databases)) body.databases = body.databases.map(database);
}

/**
 * `POST /algorithmstore` as 4.x's client sends it: the store's address as `algorithm_store_url`, its collaboration
 * as a list of one (or none: all collaborations). `force` and `server_url` ask a 4.x server to check the store
 * and register this server with it; Federa links the store as it is.
 */
function fourStore(body: Obj): void {
  // 4.x names a store by its address, to which its client adds `/api`; Federa keeps the URL of the store's API.
  if (typeof body.algorithm_store_url === 'string' && body.url === undefined)
    body.url = `${body.algorithm_store_url.replace(/\/+$/, '')}/api`;
  else if (body.algorithm_store_url !== undefined && body.url === undefined)
    body.url = body.algorithm_store_url;
  delete body.algorithm_store_url;
  const collaboration = body.collaboration_id;
  if (Array.isArray(collaboration)) {
    if (collaboration.length > 1) throw invalid('collaboration_id', 'names more than one collaboration');
    body.collaboration_id = collaboration[0];
  }
  if (body.collaboration_id === null || body.collaboration_id === undefined) delete body.collaboration_id;
  for (const field of ['force', 'server_url']) delete body[field];
}

/**
 * Checks a 4.x request's body and query against what its route declares, after turning 4.x's forms into the
 * handler's. Runs before validation.
 */
export async function fourInput(request: FastifyRequest, rel: string): Promise<void> {
  const body = request.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    if (request.method === 'POST' && rel === '/task') await fourTask(request, body as Obj);
    if (request.method === 'POST' && rel === '/task') await blobInputs(request, body as Obj);
    if (request.method === 'PATCH' && rel === '/run/:id') await blobResult(request, body as Obj);
    if (request.method === 'POST' && rel === '/algorithmstore') fourStore(body as Obj);
    const known = declared(request, 'body');
    const unknown = known && Object.keys(body).find((k) => !known.has(k));
    if (unknown) throw invalid(unknown, 'is not a field of this request');
  }
  const query = request.query as Obj;
  if (query.sort !== undefined)
    throw new ApiError(
      'validation_failed',
      "query parameter 'sort' is not available here: listings come in id order",
      {
        extra: { message: { sort: 'is not available: listings come in id order' } },
      },
    );
  const known = declared(request, 'querystring');
  if (!known) return;
  const unknown = Object.keys(query).find((k) => !known.has(k) && !LISTING_PARAMETERS.has(k));
  if (unknown)
    throw new ApiError('validation_failed', `query parameter '${unknown}' is not a filter of this listing`, {
      extra: { message: { [unknown]: 'is not a filter of this listing' } },
    });
}
