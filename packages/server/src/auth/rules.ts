/**
 * The rule catalogue (docs/access-control.md#rules) and the default roles (docs/access-control.md#roles). Rules are registered at every start
 * (missing ones created); default roles are created when missing.
 */
export const OPERATIONS = { v: 'VIEW', e: 'EDIT', c: 'CREATE', d: 'DELETE' } as const;
export const SCOPES = { own: 'OWN', org: 'ORGANIZATION', col: 'COLLABORATION', glo: 'GLOBAL' } as const;
export type Op = keyof typeof OPERATIONS;
export type Scope = keyof typeof SCOPES;
export type Resource =
  'node' | 'collaboration' | 'organization' | 'task' | 'result' | 'user' | 'role' | 'port' | 'event';

/** A rule key such as `task.v_org`: resource, operation code, scope code. */
export type RuleKey = `${Resource}.${Op}_${Scope}`;

export interface RuleDefinition {
  key: RuleKey;
  name: Resource;
  operation: (typeof OPERATIONS)[Op];
  scope: (typeof SCOPES)[Scope];
  description: string;
}

const SCOPE_WORDS: Record<Scope, string> = {
  own: 'your own',
  org: 'of your organization',
  col: 'of collaborations your organization is in',
  glo: 'any',
};
const OP_WORDS: Record<Op, string> = { v: 'view', e: 'edit', c: 'create', d: 'delete' };

const def = (key: RuleKey): RuleDefinition => {
  const [name, rest] = key.split('.') as [Resource, string];
  const [op, scope] = rest.split('_') as [Op, Scope];
  const what =
    scope === 'glo'
      ? `${OP_WORDS[op]} any ${name}`
      : scope === 'own'
        ? `${OP_WORDS[op]} your own ${name}`
        : `${OP_WORDS[op]} ${name}s ${SCOPE_WORDS[scope]}`;
  return { key, name, operation: OPERATIONS[op], scope: SCOPES[scope], description: what };
};

/**
 * In registration order: a fresh database numbers the rules of vantage6 3.6+ as it does, and those vantage6 4.x
 * added after them (added at the end, so no rule an existing database holds changes its id).
 */
export const RULES: readonly RuleDefinition[] = (
  [
    'node.v_glo',
    'node.v_org',
    'node.e_glo',
    'node.e_org',
    'node.c_glo',
    'node.c_org',
    'node.d_glo',
    'node.d_org',
    'collaboration.v_glo',
    'collaboration.v_org',
    'collaboration.e_glo',
    'collaboration.c_glo',
    'collaboration.d_glo',
    'organization.v_glo',
    'organization.v_org',
    'organization.v_col',
    'organization.e_glo',
    'organization.e_org',
    'organization.c_glo',
    'task.v_glo',
    'task.v_org',
    'task.c_glo',
    'task.c_org',
    'task.d_glo',
    'task.d_org',
    'result.v_glo',
    'result.v_org',
    'user.v_glo',
    'user.v_org',
    'user.c_glo',
    'user.c_org',
    'user.e_glo',
    'user.e_org',
    'user.e_own',
    'user.d_glo',
    'user.d_org',
    'user.d_own',
    'role.v_glo',
    'role.v_org',
    'role.c_glo',
    'role.c_org',
    'role.e_glo',
    'role.e_org',
    'role.d_glo',
    'role.d_org',
    'port.v_glo',
    'port.v_org',
    'event.v_org',
    'event.v_col',
    'event.v_glo',
    'event.c_org',
    'event.c_col',
    'event.c_glo',
    // vantage6 4.x's: the nodes of the collaborations one's organization is in (migrations/0030-node-view-collaboration.ts).
    'node.v_col',
  ] as const satisfies readonly RuleKey[]
).map(def);

export const ruleKeyOf = (r: { name: string; operation: string; scope: string }): RuleKey => {
  const op = (Object.keys(OPERATIONS) as Op[]).find((k) => OPERATIONS[k] === r.operation);
  const scope = (Object.keys(SCOPES) as Scope[]).find((k) => SCOPES[k] === r.scope);
  return `${r.name}.${op ?? '?'}_${scope ?? '?'}` as RuleKey;
};

/** Whether `rules` holds every rule there is: the root user's mark (reading the audit log, deleting organizations). */
export const holdsEveryRule = (rules: ReadonlySet<RuleKey>): boolean => RULES.every((r) => rules.has(r.key));

/** How a missing rule is named in a refusal, e.g. "task CREATE ORGANIZATION". */
export const describeRule = (key: RuleKey): string => {
  const d = RULES.find((r) => r.key === key);
  return d ? `${d.name} ${d.operation} ${d.scope}` : key;
};

const NODE_RULES: RuleKey[] = [
  'node.v_org',
  'node.e_org',
  'collaboration.v_org',
  'organization.v_org',
  'organization.v_col',
  'organization.e_org',
  'task.v_org',
  'result.v_org',
  'port.v_org',
];
const CONTAINER_RULES: RuleKey[] = [
  'node.v_org',
  'collaboration.v_org',
  'organization.v_org',
  'organization.v_col',
  'task.v_org',
  'result.v_org',
  'port.v_org',
];
const VIEWER: RuleKey[] = [
  'user.e_own',
  'user.d_own',
  'user.v_org',
  'organization.v_org',
  'organization.v_col',
  'collaboration.v_org',
  'role.v_org',
  'node.v_org',
  'node.v_col',
  'task.v_org',
  'result.v_org',
  'port.v_org',
  'event.v_org',
];
const RESEARCHER: RuleKey[] = [...VIEWER, 'task.c_org', 'task.d_org'];
const ORG_ADMIN: RuleKey[] = [
  ...RESEARCHER,
  'user.c_org',
  'user.e_org',
  'user.d_org',
  'organization.e_org',
  'role.c_org',
  'role.e_org',
  'role.d_org',
  'node.c_org',
  'node.e_org',
  'event.c_org',
];
const COLLAB_ADMIN: RuleKey[] = [
  ...ORG_ADMIN,
  'user.v_glo',
  'user.c_glo',
  'user.e_glo',
  'organization.v_glo',
  'organization.e_glo',
  'collaboration.v_glo',
  'collaboration.e_glo',
  'role.v_glo',
  'node.v_glo',
  'node.c_glo',
  'node.d_glo',
  'event.v_col',
  'event.c_col',
];

export interface DefaultRole {
  name: string;
  description: string;
  rules: readonly RuleKey[];
}

/** Roles without organization, created at start when missing. Their names are reserved. */
export const DEFAULT_ROLES: readonly DefaultRole[] = [
  { name: 'container', description: 'Fixed role of algorithm containers', rules: CONTAINER_RULES },
  { name: 'node', description: 'Fixed role of nodes', rules: NODE_RULES },
  { name: 'Root', description: 'Every rule', rules: RULES.map((r) => r.key) },
  {
    name: 'Viewer',
    description: 'Can view the data of their organization and its collaborations',
    rules: VIEWER,
  },
  { name: 'Researcher', description: 'Viewer who can also create and delete tasks', rules: RESEARCHER },
  {
    name: 'Organization Admin',
    description: 'Manages the users, roles and nodes of their organization',
    rules: ORG_ADMIN,
  },
  {
    name: 'Collaboration Admin',
    description: 'Manages collaborations and their organizations',
    rules: COLLAB_ADMIN,
  },
];

export const RESERVED_ROLE_NAMES: ReadonlySet<string> = new Set(DEFAULT_ROLES.map((r) => r.name));
