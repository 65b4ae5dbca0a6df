import type { RuleKey } from './rules.js';

export type CallerKind = 'user' | 'node' | 'container';

/**
 * Who may call a route.
 * - `callers`: the token kinds accepted (`public`: no token; `refresh`: a refresh token).
 * - `anyOf`: the caller needs at least one of these rules, checked before the handler runs. Handlers then apply
 *   the scope (own / organization / collaboration / global) of the rule the caller has.
 *   Left out where a caller may act without a rule (a user on their own account, `GET /rule`) or where the
 *   check depends on the body (container task creation).
 */
export interface RoutePolicy {
  callers: readonly CallerKind[] | 'public' | 'refresh';
  anyOf?: readonly RuleKey[];
}

const U = ['user'] as const;
const N = ['node'] as const;
const UN = ['user', 'node'] as const;
const UC = ['user', 'container'] as const;
const UNC = ['user', 'node', 'container'] as const;
/** Viewing nodes: any, of one's organization, of one's collaborations (vantage6 4.x's rule). */
const NODE_VIEW: readonly RuleKey[] = ['node.v_glo', 'node.v_org', 'node.v_col'];

/**
 * The one policy table: every route of the API (path relative to `api_path`) to its policy. A test fails when a
 * registered route is missing here, and the app refuses to start with such a route.
 */
export const POLICIES: Record<string, RoutePolicy> = {
  'POST /token/user': { callers: 'public' },
  'POST /token/node': { callers: 'public' },
  'POST /token/container': { callers: N },
  'POST /token/refresh': { callers: 'refresh' },
  'POST /token/user/validate': { callers: U },
  'POST /token/logout': { callers: UN },
  'POST /recover/lost': { callers: 'public' },
  'POST /recover/reset': { callers: 'public' },
  'POST /recover/node': { callers: U, anyOf: ['node.e_glo', 'node.e_org'] },
  'PATCH /password/change': { callers: U },
  'GET /health': { callers: 'public' },
  // The root user only (every rule), checked by the handler: no rule of its own.
  'GET /audit': { callers: U },
  'GET /audit/verify': { callers: U },
  'GET /health/fix': { callers: 'public' },
  'POST /health/fix': { callers: 'public' },
  'GET /version': { callers: 'public' },

  'GET /user': { callers: U },
  'POST /user': { callers: U, anyOf: ['user.c_glo', 'user.c_org'] },
  'GET /user/:id': { callers: U },
  'PATCH /user/:id': { callers: U },
  'DELETE /user/:id': { callers: U },

  'GET /organization': {
    callers: UNC,
    anyOf: ['organization.v_glo', 'organization.v_col', 'organization.v_org'],
  },
  'POST /organization': { callers: U, anyOf: ['organization.c_glo'] },
  'GET /organization/:id': {
    callers: UNC,
    anyOf: ['organization.v_glo', 'organization.v_col', 'organization.v_org'],
  },
  'PATCH /organization/:id': { callers: UN, anyOf: ['organization.e_glo', 'organization.e_org'] },
  'GET /organization/:id/collaboration': {
    callers: UN,
    anyOf: ['collaboration.v_glo', 'collaboration.v_org'],
  },
  'GET /organization/:id/node': { callers: UN, anyOf: NODE_VIEW },

  'GET /collaboration': { callers: U, anyOf: ['collaboration.v_glo', 'collaboration.v_org'] },
  'POST /collaboration': { callers: U },
  'GET /collaboration/:id': { callers: UNC, anyOf: ['collaboration.v_glo', 'collaboration.v_org'] },
  'PATCH /collaboration/:id': { callers: U, anyOf: ['collaboration.e_glo'] },
  'DELETE /collaboration/:id': { callers: U, anyOf: ['collaboration.d_glo'] },
  'GET /algorithmstore': { callers: U },
  'GET /algorithmstore/:id': { callers: U },
  'GET /algorithmstore/:id/algorithm': { callers: U },
  'GET /algorithmstore/:id/algorithm/:algorithm_id': { callers: U },
  'GET /column': { callers: U, anyOf: ['collaboration.v_glo', 'collaboration.v_org'] },
  'POST /algorithmstore': { callers: U, anyOf: ['collaboration.e_glo'] },
  'DELETE /algorithmstore/:id': { callers: U, anyOf: ['collaboration.e_glo'] },
  'GET /collaboration/:id/organization': {
    callers: UNC,
    anyOf: ['collaboration.v_glo', 'collaboration.v_org'],
  },
  'POST /collaboration/:id/organization': { callers: U, anyOf: ['collaboration.e_glo'] },
  'DELETE /collaboration/:id/organization': { callers: U, anyOf: ['collaboration.d_glo'] },
  'GET /collaboration/:id/node': { callers: U, anyOf: ['collaboration.v_glo', 'collaboration.v_org'] },
  'POST /collaboration/:id/node': { callers: U, anyOf: ['collaboration.e_glo'] },
  'DELETE /collaboration/:id/node': { callers: U, anyOf: ['collaboration.e_glo'] },
  'GET /collaboration/:id/task': { callers: UN, anyOf: ['task.v_glo', 'task.v_org'] },

  'GET /node': { callers: UN, anyOf: NODE_VIEW },
  'POST /node': { callers: U, anyOf: ['node.c_glo', 'node.c_org'] },
  'GET /node/:id': { callers: UN, anyOf: NODE_VIEW },
  'PATCH /node/:id': { callers: UN, anyOf: ['node.e_glo', 'node.e_org'] },
  'DELETE /node/:id': { callers: U, anyOf: ['node.d_glo', 'node.d_org'] },
  'GET /node/:id/task': { callers: UN, anyOf: ['task.v_glo', 'task.v_org'] },
  'GET /node/:id/history': { callers: U, anyOf: NODE_VIEW },

  'GET /task': { callers: UNC, anyOf: ['task.v_glo', 'task.v_org'] },
  'POST /task': { callers: UC },
  'GET /task/:id': { callers: UNC, anyOf: ['task.v_glo', 'task.v_org'] },
  'DELETE /task/:id': { callers: U, anyOf: ['task.d_glo', 'task.d_org'] },
  'GET /task/:id/result': { callers: UC, anyOf: ['result.v_glo', 'result.v_org'] },

  'GET /result': { callers: UNC, anyOf: ['result.v_glo', 'result.v_org'] },
  'GET /result/:id': { callers: UNC, anyOf: ['result.v_glo', 'result.v_org'] },
  'PATCH /result/:id': { callers: N },
  'PUT /result/:id/output': { callers: N },
  'GET /result/:id/output': { callers: UNC, anyOf: ['result.v_glo', 'result.v_org'] },

  'GET /role': { callers: U },
  'POST /role': { callers: U, anyOf: ['role.c_glo', 'role.c_org'] },
  'GET /role/:id': { callers: U },
  'PATCH /role/:id': { callers: U, anyOf: ['role.e_glo', 'role.e_org'] },
  'DELETE /role/:id': { callers: U, anyOf: ['role.d_glo', 'role.d_org'] },
  'GET /role/:id/rule': { callers: U, anyOf: ['role.v_glo', 'role.v_org'] },
  'POST /role/:id/rule/:rule_id': { callers: U, anyOf: ['role.e_glo', 'role.e_org'] },
  'DELETE /role/:id/rule/:rule_id': { callers: U, anyOf: ['role.d_glo', 'role.d_org'] },
  'GET /rule': { callers: U },
  'GET /rule/:id': { callers: U },

  'GET /port': { callers: UNC, anyOf: ['port.v_glo', 'port.v_org'] },
  'POST /port': { callers: N },
  'DELETE /port': { callers: N },
  'GET /port/:id': { callers: UNC, anyOf: ['port.v_glo', 'port.v_org'] },
  'GET /vpn': { callers: N },
  'POST /vpn/update': { callers: N },
  'GET /vpn/algorithm/addresses': { callers: ['container'] },
  'POST /kill/task': { callers: U, anyOf: ['event.c_glo', 'event.c_org', 'task.c_glo', 'task.c_org'] },
  'POST /kill/node/tasks': { callers: U, anyOf: ['task.c_glo', 'task.c_org'] },
};

/**
 * The routes only the vantage6 4.x surface has (docs/vantage6-4.md), relative to `/v4/api`; its other routes are
 * the 3.x routes above, with their policies. A 4.x run is a result, a task's status is the task's.
 */
export const V4_ONLY_POLICIES: Record<string, RoutePolicy> = {
  'GET /run': POLICIES['GET /result']!,
  'GET /run/:id': POLICIES['GET /result/:id']!,
  'PATCH /run/:id': POLICIES['PATCH /result/:id']!,
  'GET /task/:id/status': POLICIES['GET /task/:id']!,
  // A study is part of its collaboration: the collaboration's rules (routes/v4/study.ts).
  'GET /study': { callers: UC, anyOf: ['collaboration.v_glo', 'collaboration.v_org'] },
  'GET /study/:id': { callers: UC, anyOf: ['collaboration.v_glo', 'collaboration.v_org'] },
  'POST /study': POLICIES['PATCH /collaboration/:id']!,
  'PATCH /study/:id': POLICIES['PATCH /collaboration/:id']!,
  'DELETE /study/:id': POLICIES['DELETE /collaboration/:id']!,
  'POST /study/:id/organization': POLICIES['POST /collaboration/:id/organization']!,
  'DELETE /study/:id/organization': POLICIES['DELETE /collaboration/:id/organization']!,
  // A blob is an upload or a run's output held in the result store: read as that output, or that run's input, is
  // (routes/v4/blobstream.ts). Users upload with the rule to create tasks, checked by the handler (nodes and
  // containers hold no such rule).
  'GET /blobstream/status': { callers: UNC },
  'GET /blobstream/:uuid': POLICIES['GET /result/:id/output']!,
  'POST /blobstream': { callers: UNC },
  // Two-factor authentication is not offered: both answer so, to anyone (routes/v4/recover-2fa.ts).
  'POST /recover/2fa/lost': { callers: 'public' },
  'POST /recover/2fa/reset': { callers: 'public' },
  'PATCH /algorithmstore/:id': POLICIES['POST /algorithmstore']!,
  'POST /column': POLICIES['GET /column']!,
  // The root user only (every rule), checked by the handler: Federa has no rule to delete organizations.
  'DELETE /organization/:id': { callers: U },
};

export const policyKey = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;
