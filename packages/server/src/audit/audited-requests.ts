/**
 * What the server's audit log records of a request (docs/audit.md, "For server admins"): every request that may change
 * something (POST, PATCH, DELETE) and every read of results, with who made it, from where, what it named, and how
 * it ended. Never a value of the body (passwords, API keys, encrypted input): only the names of the fields sent, and
 * for a few routes the details listed in DETAILS.
 */
import type { Caller } from '../auth/caller.js';
import type { AuditFields } from '@federa/common';

/** Routes whose GET reads results (run output). */
const RESULT_READS = new Set([
  'GET /result',
  'GET /result/:id',
  'GET /result/:id/output',
  'GET /task/:id/result',
]);

/** Event names of routes with a meaning of their own; every other audited request is `http.request`. */
const EVENTS: Record<string, readonly [success: string, failure: string]> = {
  'POST /token/user': ['user.login', 'user.login_failed'],
  'POST /token/node': ['node.login', 'node.login_failed'],
  'POST /token/refresh': ['token.refreshed', 'token.refresh_failed'],
  'POST /token/container': ['container.token', 'container.token_refused'],
  'POST /task': ['task.created', 'task.refused'],
  'DELETE /task/:id': ['task.deleted', 'task.delete_refused'],
  'POST /kill/task': ['task.killed', 'task.kill_refused'],
  'POST /kill/node/tasks': ['node.tasks_killed', 'node.kill_refused'],
  'PATCH /result/:id': ['run.reported', 'run.report_refused'],
  'PUT /result/:id/output': ['run.output_uploaded', 'run.output_refused'],
};

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown, max = 200): string | undefined =>
  typeof v === 'string' ? v.slice(0, max) : undefined;
const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Safe details of a few bodies (never secrets). */
const DETAILS: Record<string, (body: Record<string, unknown>) => AuditFields> = {
  'POST /token/user': (b) => ({ username: str(b.username) }),
  'POST /token/container': (b) => ({ task_id: num(b.task_id), image: str(b.image, 500) }),
  'POST /task': (b) => ({
    image: str(b.image, 500),
    collaboration_id: num(b.collaboration_id),
    organization_ids: Array.isArray(b.organizations)
      ? b.organizations.map((o) => num(record(o).id)).filter((id) => id !== undefined)
      : undefined,
    database: str(b.database),
    databases: Array.isArray(b.databases)
      ? b.databases
          .slice(0, 32)
          .map((d) => str(record(d).label, 256))
          .filter((l) => l !== undefined)
      : undefined,
  }),
  'POST /kill/task': (b) => ({ task_id: num(b.id) }),
  'POST /kill/node/tasks': (b) => ({ node_id: num(b.id) }),
  'PATCH /result/:id': (b) => ({ status: str(b.status) }),
};

/** Whether a request to a route (policy key) is recorded. */
export function isAudited(method: string, routeKey: string): boolean {
  return method !== 'GET' ? method !== 'HEAD' && method !== 'OPTIONS' : RESULT_READS.has(routeKey);
}

/** Requests that change nothing: when their entry cannot be written, their answer is withheld (docs/audit.md). */
export function changesNothing(method: string, routeKey: string): boolean {
  return method === 'GET' || routeKey.startsWith('POST /token/');
}

export interface AuditedRequest {
  readonly method: string;
  readonly routeKey: string;
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly ip: string;
  readonly status: number;
  readonly caller: Caller | null;
  /** Set by a route when the caller is known only once it ran (logins). */
  readonly actor: AuditActor | null;
  /** The answer's JSON text (only parsed for the id of what was created and the error code). */
  readonly payload: unknown;
}

export interface AuditActor {
  readonly kind: 'user' | 'node' | 'container';
  readonly id: number;
  readonly organization_id?: number;
  /** Containers: the task and node of the run. */
  readonly task_id?: number;
  readonly node_id?: number;
}

export function actorOf(caller: Caller | null): AuditActor | null {
  if (!caller) return null;
  if (caller.kind === 'container' && caller.container)
    return {
      kind: 'container',
      id: caller.id,
      task_id: caller.container.task_id,
      node_id: caller.container.node_id,
      organization_id: caller.organizationId,
    };
  return { kind: caller.kind, id: caller.id, organization_id: caller.organizationId };
}

/** The event name and fields of an audited request. */
export function describeRequest(r: AuditedRequest): { event: string; fields: AuditFields } {
  const ok = r.status < 400;
  const names = EVENTS[r.routeKey];
  const event = names ? names[ok ? 0 : 1] : r.method === 'GET' ? 'result.read' : 'http.request';
  const body = record(r.body);
  let answer: Record<string, unknown> = {};
  if (typeof r.payload === 'string' && r.payload.length < 65_536 && (!ok || r.method === 'POST')) {
    try {
      answer = record(JSON.parse(r.payload));
    } catch {
      answer = {};
    }
  }
  const params = record(r.params);
  const query = record(r.query);
  const fields: Record<string, unknown> = {
    route: r.routeKey,
    actor: r.actor ?? actorOf(r.caller),
    ip: r.ip,
    status: r.status,
    ...(Object.keys(params).length ? { params } : {}),
    ...(r.method === 'GET' && Object.keys(query).length ? { query: safeQuery(query) } : {}),
    ...(r.method !== 'GET' && Object.keys(body).length ? { body_fields: Object.keys(body).sort() } : {}),
    ...(DETAILS[r.routeKey]?.(body) ?? {}),
    ...(ok && r.method === 'POST' && num(answer.id) !== undefined ? { created_id: num(answer.id) } : {}),
    ...(!ok && typeof answer.code === 'string' ? { error: answer.code.slice(0, 64) } : {}),
  };
  return { event, fields };
}

/** Query parameters of result reads (ids and filters), cut short. */
function safeQuery(query: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(query)
      .slice(0, 20)
      .map(([k, v]) => [k.slice(0, 64), (Array.isArray(v) ? v.join(',') : String(v)).slice(0, 200)]),
  );
}
