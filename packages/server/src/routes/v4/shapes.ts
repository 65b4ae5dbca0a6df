/**
 * The 3.x handlers' answers in vantage6 4.14's shapes (routes/v4/schemas.ts): the same items, read once by the
 * same handlers, rewritten field by field. Nothing here reads the database or decides who sees what.
 */
import type { FastifyRequest } from 'fastify';
import type { TaskDatabase } from '@federa/common';
import { V4_API_PATH } from '../../http/api-surfaces.js';
import { blobUuid } from './blobstream.js';

type Obj = Record<string, unknown>;
interface Ref3 {
  id: number;
}

const METHODS: Record<string, string[]> = {
  organization: ['GET', 'PATCH'],
  collaboration: ['GET', 'PATCH', 'DELETE'],
  node: ['GET', 'PATCH', 'DELETE'],
  user: ['GET', 'PATCH', 'DELETE'],
  task: ['GET', 'DELETE'],
  run: ['GET', 'PATCH'],
  result: ['GET'],
  study: ['GET', 'PATCH', 'DELETE'],
  role: ['GET', 'PATCH', 'DELETE'],
  algorithmstore: ['GET', 'PATCH', 'DELETE'],
};

/** `{id, link, methods}` of one 4.x item (the methods list is shared: answers are only serialized). */
export const ref4 = (kind: string, id: number | null | undefined) =>
  id === null || id === undefined
    ? null
    : { id, link: `${V4_API_PATH}/${kind}/${id}`, methods: METHODS[kind] ?? ['GET'] };
const refOf = (kind: string, r: unknown) => ref4(kind, (r as Ref3 | null | undefined)?.id);
const link = (to: string, filter: string, id: number) => `${V4_API_PATH}/${to}?${filter}=${id}`;

export function organization4(o: Obj): Obj {
  const id = o.id as number;
  return {
    id,
    name: o.name,
    domain: o.domain,
    address1: o.address1,
    address2: o.address2,
    zipcode: o.zipcode,
    country: o.country,
    public_key: o.public_key,
    collaborations: link('collaboration', 'organization_id', id),
    nodes: link('node', 'organization_id', id),
    users: link('user', 'organization_id', id),
    tasks: link('task', 'init_org_id', id),
    runs: link('run', 'organization_id', id),
    studies: link('study', 'organization_id', id),
  };
}

export function collaboration4(c: Obj): Obj {
  const id = c.id as number;
  return {
    id,
    name: c.name,
    encrypted: c.encrypted,
    organizations: link('organization', 'collaboration_id', id),
    nodes: link('node', 'collaboration_id', id),
    tasks: link('task', 'collaboration_id', id),
    algorithm_stores: link('algorithmstore', 'collaboration_id', id),
    studies: link('study', 'collaboration_id', id),
  };
}

export function node4(n: Obj): Obj {
  return {
    ...n,
    organization: refOf('organization', n.organization),
    collaboration: refOf('collaboration', n.collaboration),
  };
}

export function user4(u: Obj): Obj {
  const id = u.id as number;
  return {
    id,
    type: u.type,
    username: u.username,
    firstname: u.firstname,
    lastname: u.lastname,
    email: u.email,
    ip: null,
    status: u.status,
    last_seen: u.last_seen,
    organization: refOf('organization', u.organization),
    roles: link('role', 'user_id', id),
    rules: link('rule', 'user_id', id),
  };
}

export function role4(r: Obj): Obj {
  const id = r.id as number;
  return {
    id,
    name: r.name,
    description: r.description,
    organization: refOf('organization', r.organization),
    rules: link('rule', 'role_id', id),
    users: link('user', 'role_id', id),
  };
}

export function rule4(r: Obj): Obj {
  const id = r.id as number;
  return {
    id,
    name: r.name,
    operation: r.operation,
    scope: r.scope,
    description: r.description,
    users: link('user', 'rule_id', id),
  };
}

/**
 * A task's databases as 4.x lists them: `{label, parameters}`, the parameters as the JSON text 4.x stores (its
 * nodes parse it). A task that named only `database` has that one label.
 */
function databases4(t: Obj): { label: string; parameters: string }[] {
  const list = t.databases as TaskDatabase[] | null | undefined;
  if (list && list.length > 0)
    return list.map((d) => ({ label: d.label, parameters: JSON.stringify(d.parameters ?? {}) }));
  const label = typeof t.database === 'string' && t.database !== '' ? t.database : 'default';
  return [{ label, parameters: '{}' }];
}

/** What `include=` asked of a 4.x task listing or item: its runs and/or results embedded. */
export interface TaskIncludes {
  runs: boolean;
  results: boolean;
}

/** A 3.x task (with its results embedded when `include` asks) as 4.x shows it. */
export function task4(t: Obj, include: TaskIncludes = { runs: false, results: false }): Obj {
  const id = t.id as number;
  const embedded =
    Array.isArray(t.results) && typeof (t.results[0] as Obj | undefined)?.status !== 'undefined';
  const runs = embedded ? (t.results as Obj[]) : [];
  const out: Obj = {
    id,
    name: t.name,
    description: t.description,
    image: t.image,
    status: t.status,
    job_id: t.run_id,
    created_at: t.created_at,
    finished_at: t.finished_at,
    collaboration: refOf('collaboration', t.collaboration),
    study: ref4('study', t.study_id as number | undefined),
    algorithm_store: ref4('algorithmstore', t.store_id as number | undefined),
    parent: refOf('task', t.parent),
    init_org: ref4('organization', t.init_org as number | null),
    init_user: ref4('user', t.init_user as number | null),
    children: link('task', 'parent_id', id),
    databases: databases4(t),
    runs: include.runs ? runs.map((r) => run4({ ...r, task: { id } })) : link('run', 'task_id', id),
    results: include.results
      ? runs.map((r) => result4({ ...r, task: { id } }))
      : link('result', 'task_id', id),
  };
  if (typeof t.warning === 'string') out.warning = t.warning;
  return out;
}

/** A 3.x result (its organization a reference or an id; its task a reference or the task) as a 4.x run. */
export function run4(r: Obj): Obj {
  const id = r.id as number;
  const task = r.task as Obj | undefined;
  const org = r.organization;
  return {
    id,
    input: r.input,
    log: r.log,
    assigned_at: r.assigned_at,
    started_at: r.started_at,
    finished_at: r.finished_at,
    cleanup_at: null,
    status: r.status,
    blob_storage_used: false,
    node: r.node,
    ports: r.ports,
    organization: typeof org === 'number' ? ref4('organization', org) : refOf('organization', org),
    results: ref4('result', id),
    // A task embedded by include=task carries its own fields; otherwise it is a reference.
    task: task && 'image' in task ? withoutRuns(task4(task)) : refOf('task', task),
  };
}

const withoutRuns = ({ runs: _runs, ...task }: Obj): Obj => task;

/**
 * A 3.x result as 4.x's `/result` shows it: the output and what it belongs to. An output held in the result store is
 * shown as 4.x shows a blob: `blob_storage_used` true and `result` the UUID its client fetches from `/blobstream`.
 */
export function result4(r: Obj): Obj {
  const id = r.id as number;
  const stored = r.result_stored as { sha256?: unknown } | null | undefined;
  const blob = typeof stored?.sha256 === 'string' ? blobUuid(id, stored.sha256) : null;
  return {
    id,
    result: blob ?? r.result,
    blob_storage_used: blob !== null,
    run: ref4('run', id),
    task: refOf('task', r.task),
  };
}

/** A linked algorithm store as 4.x shows it: the collaboration it serves as a link (null when it serves all). */
/**
 * A store as 4.x shows it: its address without the API path, to which 4.x's client adds `/api` (Federa keeps the
 * API's URL). The store inside this server is given at the address the request came to, so a 4.x client reaches it.
 */
export function store4(s: Obj, request?: FastifyRequest): Obj {
  const id = s.id as number;
  const url = String(s.url);
  const address = s.internal === true && request ? `${request.protocol}://${request.host}${url}` : url;
  return {
    id,
    name: s.name,
    url: address.replace(/\/api$/, ''),
    collaborations: s.collaboration_id === null ? null : link('collaboration', 'algorithm_store_id', id),
  };
}
