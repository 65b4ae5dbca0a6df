import type { ColumnType, Generated, Selectable } from 'kysely';
import type { StoreTables } from './store-schema.js';

/**
 * The database, one interface per table. Timestamps are stored as text `YYYY-MM-DDTHH:MM:SS.ffffff` in UTC
 * (naive, as vantage6), booleans as integers 0/1, so one set of queries works on SQLite and PostgreSQL alike.
 */
export interface AuthenticatableTable {
  id: Generated<number>;
  type: 'user' | 'node';
}

export interface OrganizationTable {
  id: Generated<number>;
  name: string | null;
  domain: string | null;
  address1: string | null;
  address2: string | null;
  zipcode: string | null;
  country: string | null;
  public_key: string;
}

export interface CollaborationTable {
  id: Generated<number>;
  name: string;
  encrypted: number;
}

export interface MemberTable {
  collaboration_id: number;
  organization_id: number;
  /** The highest task id when the organization joined: it sees results of later tasks only (migration 0004). */
  since_task_id: Generated<number>;
}

export interface UserTable {
  id: number;
  username: string;
  firstname: string | null;
  lastname: string | null;
  email: string;
  password: string;
  organization_id: number;
  failed_login_attempts: number;
  last_login_attempt: string | null;
  /** When the last password reset mail was sent (migration 0015). */
  reset_mail_at: string | null;
  status: string | null;
  last_seen: string | null;
}

export interface NodeTable {
  id: number;
  name: string | null;
  api_key_hash: string;
  organization_id: number;
  collaboration_id: number | null;
  ip: string | null;
  status: string | null;
  last_seen: string | null;
}

export interface NodeConfigTable {
  id: Generated<number>;
  node_id: number;
  key: string;
  value: string;
}

/** A period a node was online (migration 0028): open (`ended_at` null) while it is. */
export interface NodeOnlinePeriodTable {
  id: Generated<number>;
  node_id: number;
  started_at: string;
  ended_at: string | null;
  /** Why it ended (repositories/node-history.ts `EndReason`); null while open. */
  end_reason: string | null;
}

export interface RoleTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  organization_id: number | null;
}

export interface RuleTable {
  id: Generated<number>;
  name: string;
  operation: string;
  scope: string;
  description: string | null;
}

export interface RoleRuleTable {
  role_id: number;
  rule_id: number;
}

export interface UserRoleTable {
  user_id: number;
  role_id: number;
}

export interface UserRuleTable {
  user_id: number;
  rule_id: number;
}

export interface TaskTable {
  id: Generated<number>;
  name: string;
  description: string;
  image: string;
  collaboration_id: number | null;
  run_id: number;
  parent_id: number | null;
  database: string | null;
  /** JSON list of `{label, type, parameters}`; null when the task named only `database`. */
  databases: string | null;
  initiator_id: number;
  init_user_id: number | null;
  created_at: string;
  /** 0/1: when a run fails, the task's pending runs are cancelled (docs/run-statuses.md#cancel-on-failure). */
  cancel_on_failure: Generated<number>;
  /** The store algorithm the task runs (migration 0020); `image` then holds its approved image and digest. */
  store_algorithm_id: number | null;
  /** The linked store it came from (`algorithm_store.id`); null: the store inside this server. */
  algorithm_store_id: number | null;
  /** `v4`: created on the vantage6 4.x surface (migration 0022); null: on the 3.x one. */
  api: ColumnType<string | null, string | null | undefined, string | null>;
  /** The study the task is scoped to (migration 0023). */
  study_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** W3C `traceparent` of the request that created the task (migration 0026); null without one. */
  traceparent: string | null;
}

/** A study: a named subset of a collaboration's organizations (vantage6 4.x; migration 0023). */
export interface StudyTable {
  id: Generated<number>;
  name: string;
  collaboration_id: number;
}

export interface StudyMemberTable {
  study_id: number;
  organization_id: number;
}

export interface ResultTable {
  id: Generated<number>;
  task_id: number;
  organization_id: number;
  input: string | null;
  result: string | null;
  log: string | null;
  /** Characters of log the node streamed while the run was active (docs/run-logs.md). */
  log_received: Generated<number>;
  /** Bytes of the output held in the result store (docs/large-results.md); null: the output is `result`, or none. */
  result_size: number | string | null;
  /** SHA-256 (hex) of the output held in the result store. */
  result_sha256: string | null;
  /** Bytes the result store holds for this run: its upload, named or not (the store's quotas sum these). */
  held_bytes: Generated<number | string | null>;
  assigned_at: string;
  started_at: string | null;
  finished_at: string | null;
  status: string | null;
}

/** An upload to `POST /v4/api/blobstream` (docs/vantage6-4.md#uploads-to-blobstream), held in the result store. */
export interface BlobTable {
  uuid: string;
  /** Who sent it: `user`, `node` or `container` (a container's node id in `uploader_id`). */
  uploader_kind: string;
  uploader_id: number;
  organization_id: number;
  /** Nodes and containers: their collaboration (their uploads count in their node's quota). */
  collaboration_id: number | null;
  /** Bytes held; null while the upload is under way. */
  size: number | string | null;
  created_at: string;
  /** The run whose input it is; null while no task references it. */
  result_id: number | null;
}

/** A piece of an object of the database result store (result-store/database-store.ts). */
export interface ResultChunkTable {
  key: string;
  seq: number;
  data: Buffer;
  /** The run an output belongs to (indexed); null for the pieces of a write not finished yet. */
  result_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface PortTable {
  id: Generated<number>;
  result_id: number;
  port: number;
  label: string | null;
}

/** One-time password reset tokens that were already used (by their `jti`). */
export interface UsedTokenTable {
  jti: string;
  used_at: string;
}

/** A login of a user or node and its refresh-token chain (docs/security.md). Times as stored text. */
export interface SessionTable {
  id: string;
  kind: 'user' | 'node';
  subject_id: number;
  created_at: string;
  /** The absolute end: no token of the session is accepted after it, however often it was refreshed. */
  expires_at: string;
  login_jti: string;
  refresh_jti: string;
  /** 1 once a refresh token other than the login's was presented (the client rotates). */
  rotated: number;
  ended_at: string | null;
  end_reason: string | null;
}

/** How many tasks a collaboration has, kept by triggers on `task` (migrations/0012-task-count.ts). */
export interface TaskCountTable {
  collaboration_id: number;
  n: number;
  /** Moves with every change of the collaboration's set of tasks (migration 0018). */
  version: Generated<number>;
}

/** Failed password checks of an account from one address (migration 0023, repositories/login-failures.ts). */
export interface LoginFailureTable {
  user_id: number;
  /** The address as `addressKey` writes it: an IPv4 address, or the /64 prefix of an IPv6 one. */
  address: string;
  failures: number;
  last_failure_at: string | null;
  /** When the account's password was last given from this address. */
  succeeded_at: string | null;
}

export interface Database extends StoreTables {
  authenticatable: AuthenticatableTable;
  organization: OrganizationTable;
  collaboration: CollaborationTable;
  member: MemberTable;
  user: UserTable;
  node: NodeTable;
  node_config: NodeConfigTable;
  node_online_period: NodeOnlinePeriodTable;
  role: RoleTable;
  rule: RuleTable;
  role_rule: RoleRuleTable;
  user_role: UserRoleTable;
  user_rule: UserRuleTable;
  task: TaskTable;
  study: StudyTable;
  study_member: StudyMemberTable;
  result: ResultTable;
  port: PortTable;
  used_token: UsedTokenTable;
  session: SessionTable;
  result_chunk: ResultChunkTable;
  blob: BlobTable;
  task_count: TaskCountTable;
  login_failure: LoginFailureTable;
}

/**
 * A table's row as a query reads it. Named `…Row`, apart from the wire types of `@federa/common` (what the API
 * answers, e.g. `Task`), which serializers/ build from rows.
 */
export type OrganizationRow = Selectable<OrganizationTable>;
export type CollaborationRow = Selectable<CollaborationTable>;
export type UserRow = Selectable<UserTable>;
export type NodeRow = Selectable<NodeTable>;
export type RoleRow = Selectable<RoleTable>;
export type RuleRow = Selectable<RuleTable>;
export type TaskRow = Selectable<TaskTable>;
export type ResultRow = Selectable<ResultTable>;
export type PortRow = Selectable<PortTable>;
export type SessionRow = Selectable<SessionTable>;
