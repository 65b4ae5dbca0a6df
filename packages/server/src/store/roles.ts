/**
 * The store's own roles (docs/store.md#reviewers-and-store-managers), held by store users whatever their rules on their server:
 * - viewer: reads approved algorithms (every user of a server the store trusts is one);
 * - developer: submits algorithms and changes their own while in review;
 * - reviewer: is assigned reviews, approves or rejects;
 * - store manager: assigns reviewers, sets policies and roles, invalidates and deletes algorithms.
 */
export const STORE_ROLES = ['viewer', 'developer', 'reviewer', 'store manager'] as const;
export type StoreRole = (typeof STORE_ROLES)[number];

export const ROLE_DESCRIPTIONS: Record<StoreRole, string> = {
  viewer: 'Reads the approved algorithms.',
  developer: 'Submits algorithms and changes their own while they are in review.',
  reviewer: 'Reviews the algorithms assigned to them: approves or rejects with a comment.',
  'store manager': 'Assigns reviewers, sets policies and roles, invalidates and deletes algorithms.',
};

/** Parses the roles a store user row keeps (JSON list), ignoring unknown names. */
export function storedRoles(json: string): StoreRole[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed)
      ? parsed.filter((r): r is StoreRole => (STORE_ROLES as readonly unknown[]).includes(r))
      : [];
  } catch {
    return [];
  }
}

/**
 * The store's rules, as vantage6 4.x's store lists them (`GET /rule`): what each role lets one do, a resource and
 * an operation. They describe the fixed roles above and cannot be changed; a store manager holds them all.
 */
export interface StoreRule {
  id: number;
  name: 'algorithm' | 'review' | 'user' | 'role' | 'policy';
  operation: 'view' | 'create' | 'edit' | 'delete';
  description: string;
}

const RULE_HOLDERS: readonly [Omit<StoreRule, 'id'>, readonly StoreRole[]][] = [
  [{ name: 'algorithm', operation: 'view', description: 'View the approved algorithms' }, ['viewer']],
  [{ name: 'algorithm', operation: 'create', description: 'Submit algorithms' }, ['developer']],
  [
    {
      name: 'algorithm',
      operation: 'edit',
      description:
        "Change one's own algorithms while they are in review (store managers: any, and invalidate them)",
    },
    ['developer'],
  ],
  [
    {
      name: 'algorithm',
      operation: 'delete',
      description: "Delete one's own algorithms (store managers: any)",
    },
    ['developer'],
  ],
  [{ name: 'review', operation: 'view', description: 'View reviews' }, ['reviewer']],
  [
    { name: 'review', operation: 'edit', description: 'Approve or reject the reviews assigned to one' },
    ['reviewer'],
  ],
  [{ name: 'review', operation: 'create', description: 'Assign reviewers' }, []],
  [{ name: 'review', operation: 'delete', description: 'Withdraw reviews' }, []],
  [{ name: 'user', operation: 'view', description: "List the store's users and their roles" }, []],
  [{ name: 'user', operation: 'create', description: 'Give a user of a trusted server store roles' }, []],
  [{ name: 'user', operation: 'edit', description: "Change a user's store roles" }, []],
  [{ name: 'role', operation: 'view', description: "View the store's roles" }, ['viewer']],
  [{ name: 'policy', operation: 'edit', description: "Change the store's policies" }, []],
];

export const STORE_RULES: readonly StoreRule[] = RULE_HOLDERS.map(([rule], i) => ({ id: i + 1, ...rule }));

/** The rules a set of roles holds, in catalogue order. */
export function rulesOfRoles(roles: ReadonlySet<StoreRole>): StoreRule[] {
  if (roles.has('store manager')) return [...STORE_RULES];
  return STORE_RULES.filter((_, i) => RULE_HOLDERS[i]![1].some((r) => roles.has(r)));
}

/** A role's id as `GET /role` lists it (1 for viewer, …), and the role of an id. */
export const storeRoleId = (role: StoreRole): number => STORE_ROLES.indexOf(role) + 1;
export const storeRoleOfId = (id: number): StoreRole | undefined => STORE_ROLES[id - 1];
