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

/** The rules of the users' roles and their direct rules. */
export async function userRules(db: Kysely<Database>, userId: number): Promise<Set<RuleKey>> {
  const rows = await db
    .selectFrom('rule')
    .select(['rule.name', 'rule.operation', 'rule.scope'])
    .where((eb) =>
      eb.or([
        eb(
          'rule.id',
          'in',
          eb
            .selectFrom('role_rule')
            .innerJoin('user_role', 'user_role.role_id', 'role_rule.role_id')
            .select('role_rule.rule_id')
            .where('user_role.user_id', '=', userId),
        ),
        eb(
          'rule.id',
          'in',
          eb.selectFrom('user_rule').select('user_rule.rule_id').where('user_rule.user_id', '=', userId),
        ),
      ]),
    )
    .execute();
  return new Set(rows.map(ruleKeyOf));
}

/** The rules of a fixed role (`node`, `container`). */
export async function fixedRoleRules(
  db: Kysely<Database>,
  roleName: 'node' | 'container',
): Promise<Set<RuleKey>> {
  const rows = await db
    .selectFrom('rule')
    .innerJoin('role_rule', 'role_rule.rule_id', 'rule.id')
    .innerJoin('role', 'role.id', 'role_rule.role_id')
    .select(['rule.name', 'rule.operation', 'rule.scope'])
    .where('role.name', '=', roleName)
    .where('role.organization_id', 'is', null)
    .execute();
  return new Set(rows.map(ruleKeyOf));
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
