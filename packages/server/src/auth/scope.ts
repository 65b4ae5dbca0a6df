import type { Kysely } from 'kysely';
import type { Database, RoleRow, UserRow } from '../db/schema.js';
import { forbidden } from '../errors.js';
import { collaborationsOf, isMember } from '../repositories/collaboration.js';
import {
  holdersOfRole,
  roleIdsOfUser,
  ruleIdsOfHolders,
  ruleIdsOfUser,
  ruleKeysById,
  ruleKeysOfRoles,
} from '../repositories/role.js';
import { can, userRules, type Caller } from './caller.js';
import { describeRule, RULES, type RuleKey } from './rules.js';

/**
 * Scope helpers shared by the routes: which collaborations and organizations a caller's organization reaches.
 * Their queries live in the repositories; the membership ones are re-exported for the routes.
 */
export { collaborationsOf, isMember, partnerOrganizations } from '../repositories/collaboration.js';
export { holdersOfRole } from '../repositories/role.js';

/**
 * The collaborations a caller acts within: a node or container only its own collaboration; a user every
 * collaboration of their organization.
 */
export async function callerCollaborations(db: Kysely<Database>, caller: Caller): Promise<number[]> {
  if (caller.kind !== 'user') return caller.collaborationId === null ? [] : [caller.collaborationId];
  if (caller.collaborationIds) return [...caller.collaborationIds];
  return collaborationsOf(db, caller.organizationId);
}

/**
 * Whether the caller's organization is a member of a collaboration: from the collaborations read with a user's
 * caller (as current as the caller itself), else from the database.
 */
export async function callerOrganizationIsMember(
  db: Kysely<Database>,
  caller: Caller,
  collaborationId: number,
): Promise<boolean> {
  if (caller.kind === 'user' && caller.collaborationIds)
    return caller.collaborationIds.includes(collaborationId);
  return isMember(db, caller.organizationId, collaborationId);
}

/**
 * The nodes a caller may view, from its node VIEW rules: every node (null, `node.v_glo`), else those of its own
 * organization (`node.v_org`) and those of the collaborations its organization is in (`node.v_col`, vantage6
 * 4.x's rule, which its default Viewer and Researcher roles hold).
 */
export interface NodeView {
  organizationId?: number;
  collaborationIds?: readonly number[];
}

export async function nodeView(db: Kysely<Database>, caller: Caller): Promise<NodeView | null> {
  if (can(caller, 'node.v_glo')) return null;
  const view: NodeView = {};
  if (can(caller, 'node.v_org')) view.organizationId = caller.organizationId;
  if (can(caller, 'node.v_col')) view.collaborationIds = await callerCollaborations(db, caller);
  return view;
}

/** Why `view` does not take in node `id`, for the refusal. */
export const nodeRefusal = (view: NodeView | null, id: number): string =>
  `You lack the permission to view node ${id}: it belongs to another organization${view?.collaborationIds ? ' and to no collaboration of yours' : ''}.`;

/** Whether `view` (from {@link nodeView}) takes in this node. */
export const viewsNode = (
  view: NodeView | null,
  node: { organization_id: number; collaboration_id: number | null },
): boolean =>
  view === null ||
  view.organizationId === node.organization_id ||
  (node.collaboration_id !== null && (view.collaborationIds?.includes(node.collaboration_id) ?? false));

/*
 * Accounts of others (docs/security.md, "Accounts of others"): a caller changes or deletes another user's
 * account, or a role someone else holds, only when they hold every rule that user holds; and nobody shrinks
 * their own rules through a role they hold.
 */

/** The first rule (in catalogue order) in `held` that the caller lacks; undefined when they hold them all. */
const firstLacking = (caller: Caller, held: Iterable<RuleKey>): RuleKey | undefined => {
  const lacking = [...held].filter((key) => !caller.rules.has(key));
  return RULES.find((r) => lacking.includes(r.key))?.key ?? lacking[0];
};

/**
 * Refuses (401) when `target` holds a rule the caller lacks. `purpose` completes "so you cannot …".
 * A caller acting on themselves is not checked here (see {@link requireNoSelfLoss}).
 */
export async function requireOutranks(
  db: Kysely<Database>,
  caller: Caller,
  target: Pick<UserRow, 'id' | 'username'>,
  purpose: string,
): Promise<void> {
  if (target.id === caller.id) return;
  const missing = firstLacking(caller, await userRules(db, target.id));
  if (missing !== undefined)
    throw forbidden(
      `User '${target.username}' (id=${target.id}) holds the rule '${describeRule(missing)}' (${missing}), which you lack, so you cannot ${purpose}.`,
    );
}

/**
 * Refuses (401) changing the rules of, or deleting, a role that another user holds when that user
 * holds a rule the caller lacks: widening or narrowing their role is managing their account.
 */
export async function requireOutranksHolders(
  db: Kysely<Database>,
  caller: Caller,
  role: Pick<RoleRow, 'id' | 'name'>,
  purpose: string,
): Promise<void> {
  // One query for the rules of all holders together; only when one is lacking, find whose it is.
  const ids = await ruleIdsOfHolders(db, role.id, caller.id);
  if (firstLacking(caller, (await ruleKeysById(db, ids)).values()) === undefined) return;
  for (const holder of await holdersOfRole(db, role.id))
    await requireOutranks(
      db,
      caller,
      holder,
      `${purpose} role '${role.name}' (id=${role.id}), which they hold`,
    );
}

/**
 * Refuses (401) a change to a role the caller holds when, after it, the caller would lack a
 * rule they hold now. `rulesAfter` is the role's rules after the change (empty when the role is deleted).
 * Rules the caller also holds through another role or directly are not lost.
 */
export async function requireNoSelfLoss(
  db: Kysely<Database>,
  caller: Caller,
  role: Pick<RoleRow, 'id' | 'name'>,
  rulesAfter: Iterable<RuleKey>,
): Promise<void> {
  const held = await roleIdsOfUser(db, caller.id);
  if (!held.includes(role.id)) return;
  const others = held.filter((id) => id !== role.id);
  const after = new Set<RuleKey>(rulesAfter);
  for (const keys of (await ruleKeysOfRoles(db, others)).values()) for (const key of keys) after.add(key);
  for (const key of (await ruleKeysById(db, await ruleIdsOfUser(db, caller.id))).values()) after.add(key);
  const lost = firstLacking({ ...caller, rules: after }, caller.rules);
  if (lost !== undefined)
    throw forbidden(
      `You hold role '${role.name}' (id=${role.id}); this change would take the rule '${describeRule(lost)}' (${lost}) away from you. Ask another administrator to make it.`,
    );
}
