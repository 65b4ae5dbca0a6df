import type { Kysely } from 'kysely';
import type { Database, NodeRow, UserRow } from '../db/schema.js';
import type { ContainerIdentity } from './tokens.js';
import { ruleKeyOf, type RuleKey } from './rules.js';
import { parseIdList } from '../db/id-list.js';
import {
  fixedRoleRuleIds,
  ruleCatalogue,
  userWithRuleIds,
  userWithRuleIdsAndSession,
  userWithRuleIdsSessionAndReading,
  nodeWithRuleIdsAndSession,
  nodeWithRuleIdsSessionAndReading,
} from '../repositories/caller.js';
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
  user?: UserRow;
  node?: NodeRow;
  container?: ContainerIdentity;
  /** When this caller stops being accepted without any change in the database (a finished run's container). */
  validUntil?: number;
  /**
   * Users: the collaborations of their organization, when they were read with the caller (auth/scope.ts
   * `callerCollaborations`); as current as the caller itself.
   */
  collaborationIds?: readonly number[];
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
    const rows = await ruleCatalogue(db);
    keys = new Map(rows.map((r) => [r.id, ruleKeyOf(r)]));
    ruleKeysByDb.set(db, keys);
  }
  const map = keys;
  return new Set(ids.flatMap((id) => map.get(id) ?? []));
}

/** Rule sets by the id lists they were built from (see {@link loadUser}). */
const ruleSetsByDb = new WeakMap<Kysely<Database>, Map<string, ReadonlySet<RuleKey>>>();

/** The user and the rules of their roles and their direct rules; undefined when the user does not exist. */
async function loadUser(
  db: Kysely<Database>,
  userId: number,
): Promise<{ user: UserRow; rules: ReadonlySet<RuleKey> } | undefined> {
  const [row] = await userWithRuleIds(db, userId);
  if (!row) return undefined;
  const { role_rule_ids, direct_rule_ids, ...user } = row;
  return { user, rules: await rulesOfLists(db, role_rule_ids, direct_rule_ids) };
}

/** The rules of a user's id lists (role rules, direct rules). */
async function rulesOfLists(
  db: Kysely<Database>,
  roleRuleIds: string | null,
  directRuleIds: string | null,
): Promise<ReadonlySet<RuleKey>> {
  // The same id lists always name the same rules (the catalogue does not change), so their set is reused.
  let sets = ruleSetsByDb.get(db);
  if (!sets) ruleSetsByDb.set(db, (sets = new Map()));
  const key = `${roleRuleIds ?? ''}|${directRuleIds ?? ''}`;
  let rules = sets.get(key);
  if (!rules) {
    rules = await ruleKeys(db, [...parseIdList(roleRuleIds), ...parseIdList(directRuleIds)]);
    if (sets.size >= 1000) sets.clear();
    sets.set(key, rules);
  }
  return rules;
}

/** What a request's authentication needs to know of the token's session (null fields: no such session). */
export interface SessionState {
  kind: string | null;
  subject_id: number | null;
  expires_at: string | null;
  ended_at: string | null;
  end_reason: string | null;
}

/** A caller loaded with its session's state, and the clock reading when it was asked for (PostgreSQL). */
export interface CallerInSession {
  caller: Caller;
  session: SessionState;
  reading?: string;
}

/**
 * The caller a user id names and the state of the session `sessionId`, in one query; undefined when the user does
 * not exist. `withReading` (PostgreSQL only) reads the read cache's clock in the same query.
 */
export async function userCallerInSession(
  db: Kysely<Database>,
  userId: number,
  sessionId: string,
  withReading = false,
): Promise<CallerInSession | undefined> {
  const [row] = withReading
    ? await userWithRuleIdsSessionAndReading(db, userId, sessionId)
    : await userWithRuleIdsAndSession(db, userId, sessionId);
  if (!row) return undefined;
  const { role_rule_ids, direct_rule_ids, collaboration_ids, reading, ...rest } = row as typeof row & {
    reading?: string;
  };
  const { session, identity: user } = splitSession(rest);
  const rules = await rulesOfLists(db, role_rule_ids, direct_rule_ids);
  return {
    caller: {
      kind: 'user',
      id: user.id,
      organizationId: user.organization_id,
      collaborationId: null,
      rules,
      collaborationIds: parseIdList(collaboration_ids),
      user,
    },
    session,
    ...(reading === undefined ? {} : { reading }),
  };
}

/**
 * The caller a node id names and the state of the session `sessionId`, in one query; undefined without node.
 * `withReading`: as for users.
 */
export async function nodeCallerInSession(
  db: Kysely<Database>,
  nodeId: number,
  sessionId: string,
  withReading = false,
): Promise<CallerInSession | undefined> {
  const [row] = withReading
    ? await nodeWithRuleIdsSessionAndReading(db, nodeId, sessionId)
    : await nodeWithRuleIdsAndSession(db, nodeId, sessionId);
  if (!row) return undefined;
  const { rule_ids, reading, ...rest } = row as typeof row & { reading?: string };
  const { session, identity: node } = splitSession(rest);
  return {
    caller: {
      kind: 'node',
      id: node.id,
      organizationId: node.organization_id,
      collaborationId: node.collaboration_id,
      rules: await ruleKeys(db, parseIdList(rule_ids)),
      node,
    },
    session,
    ...(reading === undefined ? {} : { reading }),
  };
}

/** A row of an identity with the `session_` columns beside it: the identity's fields, and the session's. */
function splitSession<T extends Record<`session_${keyof SessionState}`, unknown>>(
  row: T,
): { session: SessionState; identity: Omit<T, `session_${keyof SessionState}`> } {
  const {
    session_kind,
    session_subject_id,
    session_expires_at,
    session_ended_at,
    session_end_reason,
    ...identity
  } = row;
  return {
    session: {
      kind: session_kind as string | null,
      subject_id: session_subject_id as number | null,
      expires_at: session_expires_at as string | null,
      ended_at: session_ended_at as string | null,
      end_reason: session_end_reason as string | null,
    },
    identity,
  };
}

/** The rules of the user's roles and their direct rules. */
export async function userRules(db: Kysely<Database>, userId: number): Promise<ReadonlySet<RuleKey>> {
  return (await loadUser(db, userId))?.rules ?? new Set();
}

/** The rules of a fixed role (`node`, `container`). */
export async function fixedRoleRules(
  db: Kysely<Database>,
  roleName: 'node' | 'container',
): Promise<Set<RuleKey>> {
  return ruleKeys(db, await fixedRoleRuleIds(db, roleName));
}

/** The caller a user id names; undefined when the user does not exist. */
export async function userCaller(db: Kysely<Database>, userId: number): Promise<Caller | undefined> {
  const loaded = await loadUser(db, userId);
  if (!loaded) return undefined;
  const { user, rules } = loaded;
  return {
    kind: 'user',
    id: user.id,
    organizationId: user.organization_id,
    collaborationId: null,
    rules,
    user,
  };
}

export async function nodeCaller(db: Kysely<Database>, node: NodeRow): Promise<Caller> {
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
