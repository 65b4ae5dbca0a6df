import type { ExpressionBuilder, Kysely } from 'kysely';
import { SnapshotClock } from '../db/change-clock.js';
import type { Database } from '../db/schema.js';
import { idList } from '../db/id-list.js';
import { prepared } from '../db/prepared.js';

/**
 * Data access for authenticating a request (auth/authenticate.ts, auth/caller.ts): the caller's row and rule ids,
 * the rule catalogue, a container's run, `last_seen`. These run on every request: the per-request ones are
 * prepared (db/prepared.ts).
 */

/** The whole rule catalogue (id and the parts of its key). */
export async function ruleCatalogue(db: Kysely<Database>) {
  return db.selectFrom('rule').select(['id', 'name', 'operation', 'scope']).execute();
}

/**
 * The user row with the ids of the rules of their roles and of their direct rules (as id lists, see
 * db/id-list.ts), in one query.
 */
export const userWithRuleIds = prepared((db, userId: number) =>
  db.selectFrom('user').selectAll('user').select(ruleIdLists).where('user.id', '=', userId),
);

/** The rule id lists of the user row of a query (the subqueries of {@link userWithRuleIds}). */
const ruleIdLists = (eb: ExpressionBuilder<Database, 'user'>) => [
  eb
    .selectFrom('user_role')
    .innerJoin('role_rule', 'role_rule.role_id', 'user_role.role_id')
    .select((sub) => idList(sub.ref('role_rule.rule_id')).as('ids'))
    .whereRef('user_role.user_id', '=', 'user.id')
    .as('role_rule_ids'),
  eb
    .selectFrom('user_rule')
    .select((sub) => idList(sub.ref('user_rule.rule_id')).as('ids'))
    .whereRef('user_rule.user_id', '=', 'user.id')
    .as('direct_rule_ids'),
];

/**
 * {@link userWithRuleIds} and, beside it, the state of the session `sessionId` (null columns when there is no such
 * session): what authenticating a user's request needs, in one round trip.
 */
const userInSession = (db: Kysely<Database>, userId: number, sessionId: string) =>
  db
    .selectFrom('user')
    .leftJoin('session', (join) => join.on('session.id', '=', sessionId))
    .selectAll('user')
    .select(ruleIdLists)
    .select((eb) =>
      // The collaborations of the user's organization, which most routes scope by (auth/scope.ts).
      eb
        .selectFrom('member')
        .select((sub) => idList(sub.ref('member.collaboration_id')).as('ids'))
        .whereRef('member.organization_id', '=', 'user.organization_id')
        .as('collaboration_ids'),
    )
    .select(SESSION_STATE)
    .where('user.id', '=', userId);

export const userWithRuleIdsAndSession = prepared(userInSession);

/**
 * PostgreSQL: {@link userWithRuleIdsAndSession} with the read cache's clock reading beside it (`reading`, the
 * snapshot this query ran with; db/change-clock.ts): a GET's reading and caller in one round trip.
 */
export const userWithRuleIdsSessionAndReading = prepared((db, userId: number, sessionId: string) =>
  userInSession(db, userId, sessionId).select(SnapshotClock.column),
);

const fixedRoleRuleRows = prepared((db, roleName: string) =>
  db
    .selectFrom('role_rule')
    .innerJoin('role', 'role.id', 'role_rule.role_id')
    .select('role_rule.rule_id')
    .where('role.name', '=', roleName)
    .where('role.organization_id', 'is', null),
);

/** The session columns a request's authentication checks, `session_` before each name. */
const SESSION_STATE = [
  'session.kind as session_kind',
  'session.subject_id as session_subject_id',
  'session.expires_at as session_expires_at',
  'session.ended_at as session_ended_at',
  'session.end_reason as session_end_reason',
] as const;

/**
 * The node row, the rule ids of the fixed `node` role (an id list) and the state of the session `sessionId`
 * (null columns when there is no such session), in one query.
 */
const nodeInSession = (db: Kysely<Database>, nodeId: number, sessionId: string) =>
  db
    .selectFrom('node')
    .leftJoin('session', (join) => join.on('session.id', '=', sessionId))
    .selectAll('node')
    .select((eb) =>
      eb
        .selectFrom('role_rule')
        .innerJoin('role', 'role.id', 'role_rule.role_id')
        .select((sub) => idList(sub.ref('role_rule.rule_id')).as('ids'))
        .where('role.name', '=', 'node')
        .where('role.organization_id', 'is', null)
        .as('rule_ids'),
    )
    .select(SESSION_STATE)
    .where('node.id', '=', nodeId);

export const nodeWithRuleIdsAndSession = prepared(nodeInSession);

/** PostgreSQL: {@link nodeWithRuleIdsAndSession} with the clock reading beside it (see the user's). */
export const nodeWithRuleIdsSessionAndReading = prepared((db, nodeId: number, sessionId: string) =>
  nodeInSession(db, nodeId, sessionId).select(SnapshotClock.column),
);

/** The rule ids of a fixed role (`node`, `container`: the role of that name without organization). */
export async function fixedRoleRuleIds(
  db: Kysely<Database>,
  roleName: 'node' | 'container',
): Promise<number[]> {
  return (await fixedRoleRuleRows(db, roleName)).map((r) => r.rule_id);
}

/** What a container token depends on: its task and run, its node, and a reset of that node's API key. */
export interface ContainerRunState {
  /** The task (undefined when deleted) with the organization's run's `finished_at` (null while going). */
  run: { id: number; finished_at: string | null } | undefined;
  nodeExists: boolean;
  /** Whether a session of the node ended by an API key reset at or after `resetSince` (stored form). */
  apiKeyReset: boolean;
}

export async function containerRunState(
  db: Kysely<Database>,
  identity: { task_id: number; organization_id: number; node_id: number },
  resetSince: string,
): Promise<ContainerRunState> {
  const [run, node, revoked] = await Promise.all([
    db
      .selectFrom('task')
      .leftJoin('result', (join) =>
        join
          .onRef('result.task_id', '=', 'task.id')
          .on('result.organization_id', '=', identity.organization_id),
      )
      .select(['task.id', 'result.finished_at'])
      .where('task.id', '=', identity.task_id)
      .executeTakeFirst(),
    db.selectFrom('node').select('id').where('id', '=', identity.node_id).executeTakeFirst(),
    db
      .selectFrom('session')
      .select('id')
      .where('kind', '=', 'node')
      .where('subject_id', '=', identity.node_id)
      .where('end_reason', '=', 'api_key_reset')
      .where('ended_at', '>=', resetSince)
      .executeTakeFirst(),
  ]);
  return { run, nodeExists: node !== undefined, apiKeyReset: revoked !== undefined };
}

/** Records that a user or node was seen at `when` (stored form). */
export async function recordSeen(
  db: Kysely<Database>,
  kind: 'user' | 'node',
  id: number,
  when: string,
): Promise<void> {
  await db.updateTable(kind).set({ last_seen: when }).where('id', '=', id).execute();
}
