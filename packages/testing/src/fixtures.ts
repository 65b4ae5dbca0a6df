import bcrypt from 'bcrypt';
import {
  hashApiKey,
  newApiKey,
  nextRunId,
  nowStored,
  openSession,
  RULES,
  type AppContext,
  type RuleKey,
} from '@federa/server';

let counter = 0;
const unique = (prefix: string): string => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

export interface FixtureUser {
  id: number;
  username: string;
  password: string;
  organizationId: number;
  /** A fresh access token for this user. */
  token(): Promise<string>;
}

/**
 * Test data written straight into the database, so a test of one resource does not depend on the routes of
 * another. Tests of a resource's own behaviour go through the API.
 */
export class Fixtures {
  constructor(private readonly ctx: AppContext) {}

  private get db() {
    return this.ctx.dbh.db;
  }

  async organization(
    fields: { name?: string; public_key?: string; domain?: string; country?: string } = {},
  ): Promise<number> {
    const row = await this.db
      .insertInto('organization')
      .values({
        name: fields.name ?? unique('org'),
        public_key: fields.public_key ?? '',
        domain: fields.domain ?? null,
        country: fields.country ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async collaboration(
    organizationIds: number[],
    options: { name?: string; encrypted?: boolean } = {},
  ): Promise<number> {
    const row = await this.db
      .insertInto('collaboration')
      .values({ name: options.name ?? unique('collab'), encrypted: options.encrypted ? 1 : 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (organizationIds.length) {
      await this.db
        .insertInto('member')
        .values(organizationIds.map((organization_id) => ({ collaboration_id: row.id, organization_id })))
        .execute();
    }
    return row.id;
  }

  async ruleId(key: RuleKey): Promise<number> {
    const def = RULES.find((r) => r.key === key);
    if (!def) throw new Error(`unknown rule ${key}`);
    const row = await this.db
      .selectFrom('rule')
      .select('id')
      .where('name', '=', def.name)
      .where('operation', '=', def.operation)
      .where('scope', '=', def.scope)
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async roleId(name: string, organizationId: number | null = null): Promise<number> {
    const q = this.db.selectFrom('role').select('id').where('name', '=', name);
    const row = await (
      organizationId === null
        ? q.where('organization_id', 'is', null)
        : q.where('organization_id', '=', organizationId)
    ).executeTakeFirstOrThrow();
    return row.id;
  }

  /** A role owned by an organization (or a default one when `organizationId` is null) with the given rules. */
  async role(rules: RuleKey[], organizationId: number | null, name = unique('role')): Promise<number> {
    const row = await this.db
      .insertInto('role')
      .values({ name, description: 'test role', organization_id: organizationId })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const key of rules)
      await this.db
        .insertInto('role_rule')
        .values({ role_id: row.id, rule_id: await this.ruleId(key) })
        .execute();
    return row.id;
  }

  /** A user of `organizationId` with default roles by name (e.g. 'Researcher') and/or direct rules. */
  async user(
    organizationId: number,
    options: {
      roles?: string[];
      roleIds?: number[];
      rules?: RuleKey[];
      username?: string;
      password?: string;
      email?: string;
    } = {},
  ): Promise<FixtureUser> {
    const username = options.username ?? unique('user');
    const password = options.password ?? 'User-Password-1!';
    const auth = await this.db
      .insertInto('authenticatable')
      .values({ type: 'user' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await this.db
      .insertInto('user')
      .values({
        id: auth.id,
        username,
        email: options.email ?? `${username}@example.org`,
        firstname: 'Test',
        lastname: 'User',
        password: await bcrypt.hash(password, 4),
        organization_id: organizationId,
        failed_login_attempts: 0,
      })
      .execute();
    const roleIds = [...(options.roleIds ?? [])];
    for (const name of options.roles ?? []) roleIds.push(await this.roleId(name));
    for (const role_id of roleIds)
      await this.db.insertInto('user_role').values({ user_id: auth.id, role_id }).execute();
    for (const key of options.rules ?? [])
      await this.db
        .insertInto('user_rule')
        .values({ user_id: auth.id, rule_id: await this.ruleId(key) })
        .execute();
    return {
      id: auth.id,
      username,
      password,
      organizationId,
      token: () => openSession(this.ctx, 'user', auth.id).then((t) => t.access_token),
    };
  }

  /** A node of an organization in a collaboration; returns its id, API key and a token. */
  async node(
    organizationId: number,
    collaborationId: number | null,
    name = unique('node'),
  ): Promise<{ id: number; apiKey: string; token(): Promise<string> }> {
    const apiKey = newApiKey();
    const auth = await this.db
      .insertInto('authenticatable')
      .values({ type: 'node' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await this.db
      .insertInto('node')
      .values({
        id: auth.id,
        name,
        api_key_hash: hashApiKey(apiKey),
        organization_id: organizationId,
        collaboration_id: collaborationId,
        status: null,
      })
      .execute();
    return {
      id: auth.id,
      apiKey,
      token: () => openSession(this.ctx, 'node', auth.id).then((t) => t.access_token),
    };
  }

  /** A task with one pending result per organization (input stored as given). */
  async task(
    collaborationId: number,
    organizationIds: number[],
    options: {
      initiatorId?: number;
      initUserId?: number | null;
      image?: string;
      name?: string;
      parentId?: number | null;
      runId?: number;
      input?: string;
      database?: string;
    } = {},
  ): Promise<{ id: number; runId: number; resultIds: number[] }> {
    // A run of its own as the server gives one (on PostgreSQL from its sequence, which the API's tasks share).
    const runId = options.runId ?? (await nextRunId(this.db, this.ctx.dbh.dialect));
    const task = await this.db
      .insertInto('task')
      .values({
        name: options.name ?? 'test task',
        description: '',
        image: options.image ?? 'example/image:latest',
        collaboration_id: collaborationId,
        run_id: runId,
        parent_id: options.parentId ?? null,
        database: options.database ?? 'default',
        initiator_id: options.initiatorId ?? organizationIds[0] ?? 0,
        init_user_id: options.initUserId ?? null,
        created_at: nowStored(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const resultIds: number[] = [];
    for (const organization_id of organizationIds) {
      const r = await this.db
        .insertInto('result')
        .values({
          task_id: task.id,
          organization_id,
          input: options.input ?? 'aW5wdXQ=',
          assigned_at: nowStored(),
          status: 'pending',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      resultIds.push(r.id);
    }
    return { id: task.id, runId, resultIds };
  }
}
