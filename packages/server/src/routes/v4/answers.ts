/**
 * How a 3.x handler shared by the vantage6 4.x surface answers in 4.x's shapes (docs/vantage6-4.md): each shared
 * route gets 4.x's response schema (what it answers, and what `/v4/apidocs` shows) and hooks that turn the handler's
 * answer into 4.x's items. The handler, its checks and its queries stay the 3.x ones.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { errorResponses } from '../../serializers/common.js';
import { V4_API_PATH } from '../../http/api-surfaces.js';
import {
  AlgorithmStore4,
  Collaboration4,
  Listing4,
  Node4,
  Organization4,
  Result4,
  Role4,
  Rule4,
  Run4,
  Study4,
  Task4,
  User4,
} from './schemas.js';
import {
  collaboration4,
  node4,
  organization4,
  result4,
  role4,
  rule4,
  run4,
  store4,
  task4,
  user4,
  type TaskIncludes,
} from './shapes.js';

type Obj = Record<string, unknown>;
type Shape = (item: Obj, request: FastifyRequest) => Obj;

interface Answer {
  schema: TSchema;
  shape: Shape;
  /** The handler answers every item as a list (a short one): the page asked for is cut from it here. */
  page?: boolean;
}

const taskIncludes = new WeakMap<FastifyRequest, TaskIncludes>();

/** The item routes of one resource: `GET /x`, `GET|PATCH /x/:id`, `POST /x`, as far as the surface has them. */
const resource = (path: string, schema: TSchema, shape: Shape): Record<string, Answer> => {
  const one = { schema, shape };
  return {
    [`GET /${path}`]: { schema: Listing4(schema), shape },
    [`GET /${path}/:id`]: one,
    [`PATCH /${path}/:id`]: one,
    [`POST /${path}`]: one,
  };
};

const taskShape: Shape = (t, request) => task4(t, taskIncludes.get(request));

/** The 4.x answer of each shared route that answers items, by `METHOD path` relative to the surface. */
const ANSWERS: Record<string, Answer> = {
  ...resource('organization', Organization4, organization4),
  ...resource('collaboration', Collaboration4, collaboration4),
  ...resource('node', Node4, node4),
  ...resource('user', User4, user4),
  ...resource('role', Role4, role4),
  ...resource('rule', Rule4, rule4),
  ...resource('task', Task4, taskShape),
  ...resource('run', Run4, run4),
  ...resource('result', Result4, result4),
  // Members of a collaboration: added or removed, the answer lists them all.
  'POST /collaboration/:id/organization': { schema: Type.Array(Organization4), shape: organization4 },
  'DELETE /collaboration/:id/organization': { schema: Type.Array(Organization4), shape: organization4 },
  'POST /collaboration/:id/node': { schema: Type.Array(Node4), shape: node4 },
  ...resource('study', Study4, (s) => s),
  'GET /algorithmstore': { schema: Listing4(AlgorithmStore4), shape: store4, page: true },
  'GET /algorithmstore/:id': { schema: AlgorithmStore4, shape: store4 },
  'POST /algorithmstore': { schema: AlgorithmStore4, shape: store4 },
};

/** The answer of a route of this surface, if it answers items. */
export function answerOf(route: Pick<RouteOptions, 'method' | 'url'>): Answer | undefined {
  const rel = route.url.startsWith(V4_API_PATH) ? route.url.slice(V4_API_PATH.length) : route.url;
  return [route.method]
    .flat()
    .map((m) => ANSWERS[`${m} ${rel}`])
    .find((a) => a !== undefined);
}

/** `{data, links}` or one item, in 4.x's shape. */
function reshape(payload: unknown, answer: Answer, request: FastifyRequest): unknown {
  if (payload === null || typeof payload !== 'object') return payload;
  if (Array.isArray(payload)) {
    const items = (payload as Obj[]).map((i) => answer.shape(i, request));
    return answer.page ? pageOf(items, request) : items;
  }
  const p = payload as Obj;
  if (Array.isArray(p.data))
    return { data: (p.data as Obj[]).map((i) => answer.shape(i, request)), links: p.links };
  return answer.shape(p, request);
}

/** One page of a whole list, with 4.x's links (as http/pagination.ts makes them for a listing of the database). */
function pageOf(items: Obj[], request: FastifyRequest): Obj {
  const query = request.query as Obj;
  const page = Math.max(1, Number(query.page ?? 1) || 1);
  const perPage = Math.max(1, Number(query.per_page ?? 10) || 10);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const [path, search = ''] = (request.url ?? '').split('?');
  const params = new URLSearchParams(search);
  const url = (p: number) => {
    params.set('page', String(p));
    return `${path}?${params.toString()}`;
  };
  const links: Record<string, string> = { first: url(1) };
  if (page > 1) links.previous = url(Math.min(page - 1, last));
  links.self = url(page);
  if (page < last) links.next = url(page + 1);
  if (items.length > 0) links.last = url(last);
  return { data: items.slice((page - 1) * perPage, page * perPage), links };
}

const isSuccess = (reply: FastifyReply) => reply.statusCode >= 200 && reply.statusCode < 300;

/**
 * Gives a shared route 4.x's answer: its response schema, and hooks reshaping what its handler answers. A handler
 * that writes its JSON itself (GET /collaboration/{id}) is reshaped from that text.
 */
export function answerIn4x(route: RouteOptions): void {
  const answer = answerOf(route);
  if (!answer) return;
  const response = { ...((route.schema?.response as Obj | undefined) ?? {}) };
  const status = '201' in response ? '201' : '200';
  for (const code of ['200', '201']) delete response[code];
  route.schema = {
    ...(route.schema ?? {}),
    response: { ...response, ...errorResponses, [status]: answer.schema },
  };
  const reshaped = new WeakSet<FastifyRequest>();
  const preSerialization = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (!isSuccess(reply)) return payload;
    reshaped.add(request);
    // A listing's handler may have chosen the serializer of its 3.x items (http/pagination.ts).
    void reply.serializer(reply.compileSerializationSchema(answer.schema, String(reply.statusCode)));
    return reshape(payload, answer, request);
  };
  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    // A kept answer (http/read-cache.ts) went out in 4.x's shape already.
    if (reshaped.has(request) || request.readCacheHit || !isSuccess(reply)) return payload;
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    return JSON.stringify(reshape(JSON.parse(payload.toString()), answer, request));
  };
  route.preSerialization = [route.preSerialization ?? []].flat().concat(preSerialization) as never;
  route.onSend = [route.onSend ?? []].flat().concat(onSend) as never;
}

/** Query parameters 4.x names otherwise on a route, by `METHOD path`: 4.x name → the 3.x handler's. */
const RENAMED_QUERY: Record<string, [string, string][]> = {
  // In this order: 4.x's run_id (a run: Federa's result) is renamed before job_id takes the name.
  'GET /task': [
    ['run_id', 'result_id'],
    ['job_id', 'run_id'],
    ['init_org_id', 'initiator_id'],
  ],
};

/**
 * 4.x's query parameters, as the 3.x handler reads them (before validation): `include=runs|results` of a task embeds
 * its runs (the handler's `include=results`); renamed filters get their 3.x names.
 */
export function fourQuery(request: FastifyRequest, rel: string): void {
  const query = request.query as Obj;
  const key = `${request.method} ${rel}`;
  for (const [from, to] of RENAMED_QUERY[key] ?? []) {
    if (query[from] === undefined) continue;
    query[to] = query[from];
    delete query[from];
  }
  if (rel === '/task' || rel === '/task/:id') {
    const include = [query.include ?? []].flat() as string[];
    const wanted = { runs: include.includes('runs'), results: include.includes('results') };
    taskIncludes.set(request, wanted);
    const rest = include.filter((i) => i !== 'runs' && i !== 'results');
    query.include = wanted.runs || wanted.results ? [...rest, 'results'] : rest;
  }
}
