import type { Kysely } from 'kysely';
import type { Database, Node, User } from '../db/schema.js';
import type { ContainerIdentity } from './tokens.js';
import { ruleKeyOf, type RuleKey } from './rules.js';
import type { CallerKind } from './policy.js';

/** The identity behind a request, with the rules it holds. */
export interface Caller {
  kind: CallerKind;
  /** User id, node id, or (containers) the id of the node that requested the token. */
  id: number;
  organizationId: number;
  /** Node and container callers: their collaboration. */
  collaborationId: number | null;
  rules: ReadonlySet<RuleKey>;
  user?: User;
  node?: Node;
  container?: ContainerIdentity;
}

export const can = (caller: Caller, rule: RuleKey): boolean => caller.rules.has(rule);

/**
 * The rule catalogue by id. Rules are registered at start-up and never change through the API, so the map is
 * loaded once per database handle (and again if an unknown id shows up, e.g. after another instance's upgrade).
 */
const ruleKeysByDb = new WeakMap<Kysely<Database>, Map<number, RuleKey>>();

async function ruleKeys(db: Kysely<Database>, ids: readonly number[]): Promise<Set<RuleKey>> {
  let keys = ruleKeysByDb.get(db);
  if (!keys || ids.some((id) => !keys?.has(id))) {
    const rows = await db.selectFrom('rule').select(['id', 'name', 'operation', 'scope']).execute();
    keys = new Map(rows.map((r) => [r.id, ruleKeyOf(r)]));
    ruleKeysByDb.set(db, keys);
  }
  const map = keys;
  return new Set(ids.flatMap((id) => map.get(id) ?? []));
}

/** The rules of the user's roles and their direct rules. */
export async function userRules(db: Kysely<Database>, userId: number): Promise<Set<RuleKey>> {
  const rows = await db
    .selectFrom('role_rule')
    .select('rule_id')
    .where('role_id', 'in', (eb) =>
      eb.selectFrom('user_role').select('role_id').where('user_id', '=', userId),
    )
    .unionAll(db.selectFrom('user_rule').select('rule_id').where('user_id', '=', userId))
    .execute();
  return ruleKeys(
    db,
    rows.map((r) => r.rule_id),
  );
}

/** The rules of a fixed role (`node`, `container`). */
export async function fixedRoleRules(
  db: Kysely<Database>,
  roleName: 'node' | 'container',
): Promise<Set<RuleKey>> {
  const rows = await db
    .selectFrom('role_rule')
    .innerJoin('role', 'role.id', 'role_rule.role_id')
    .select('role_rule.rule_id')
    .where('role.name', '=', roleName)
    .where('role.organization_id', 'is', null)
    .execute();
  return ruleKeys(
    db,
    rows.map((r) => r.rule_id),
  );
}

export async function userCaller(db: Kysely<Database>, user: User): Promise<Caller> {
  return {
    kind: 'user',
    id: user.id,
    organizationId: user.organization_id,
    collaborationId: null,
    rules: await userRules(db, user.id),
    user,
  };
}

export async function nodeCaller(db: Kysely<Database>, node: Node): Promise<Caller> {
  return {
    kind: 'node',
    id: node.id,
    organizationId: node.organization_id,
    collaborationId: node.collaboration_id,
    rules: await fixedRoleRules(db, 'node'),
    node,
  };
}

export async function containerCaller(db: Kysely<Database>, identity: ContainerIdentity): Promise<Caller> {
  return {
    kind: 'container',
    id: identity.node_id,
    organizationId: identity.organization_id,
    collaborationId: identity.collaboration_id,
    rules: await fixedRoleRules(db, 'container'),
    container: identity,
  };
}
