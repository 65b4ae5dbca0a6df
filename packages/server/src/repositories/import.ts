import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * Data access for the fixture import (`vserver-local import`, docs/import-format.md): the look-ups and inserts it
 * needs that no other resource has. They take the import's transaction.
 */

/** Runs the import's work in one transaction: all of it is stored, or nothing. */
export async function inImportTransaction<T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(work);
}

/** Of these usernames, the ones some user has already. */
export async function existingUsernames(
  db: Kysely<Database>,
  usernames: readonly string[],
): Promise<Set<string>> {
  if (usernames.length === 0) return new Set();
  const rows = await db.selectFrom('user').select('username').where('username', 'in', usernames).execute();
  return new Set(rows.map((u) => u.username));
}

/** The username of the user with this e-mail address, if any. */
export async function usernameOfEmail(db: Kysely<Database>, email: string): Promise<string | undefined> {
  return (await db.selectFrom('user').select('username').where('email', '=', email).executeTakeFirst())
    ?.username;
}

/** The ids of every rule. */
export async function allRuleIds(db: Kysely<Database>): Promise<number[]> {
  return (await db.selectFrom('rule').select('id').execute()).map((r) => r.id);
}

export async function organizationIdByName(db: Kysely<Database>, name: string): Promise<number | undefined> {
  return (await db.selectFrom('organization').select('id').where('name', '=', name).executeTakeFirst())?.id;
}

export interface ImportedOrganization {
  readonly name: string;
  readonly domain: string | null;
  readonly address1: string | null;
  readonly address2: string | null;
  readonly zipcode: string | null;
  readonly country: string | null;
  readonly public_key: string;
}

export async function insertImportedOrganization(
  db: Kysely<Database>,
  org: ImportedOrganization,
): Promise<number> {
  const row = await db
    .insertInto('organization')
    .values({
      name: org.name,
      domain: org.domain,
      address1: org.address1,
      address2: org.address2,
      zipcode: org.zipcode,
      country: org.country,
      public_key: org.public_key,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The id of the role named `name` of the organization (`null`: the default role of that name), if any. */
export async function roleIdByName(
  db: Kysely<Database>,
  name: string,
  organizationId: number | null,
): Promise<number | undefined> {
  let q = db.selectFrom('role').select('id').where('name', '=', name);
  q =
    organizationId === null
      ? q.where('organization_id', 'is', null)
      : q.where('organization_id', '=', organizationId);
  return (await q.executeTakeFirst())?.id;
}

/** Inserts a role without rules (within the caller's transaction); returns its id. */
export async function insertRoleRow(
  db: Kysely<Database>,
  values: { name: string; description: string; organization_id: number },
): Promise<number> {
  return (await db.insertInto('role').values(values).returning('id').executeTakeFirstOrThrow()).id;
}

export async function addRulesToRole(
  db: Kysely<Database>,
  roleId: number,
  ruleIds: readonly number[],
): Promise<void> {
  if (ruleIds.length === 0) return;
  await db
    .insertInto('role_rule')
    .values(ruleIds.map((rule_id) => ({ role_id: roleId, rule_id })))
    .execute();
}

/** Inserts a collaboration without members (within the caller's transaction); returns its id. */
export async function insertCollaborationRow(
  db: Kysely<Database>,
  values: { name: string; encrypted: boolean },
): Promise<number> {
  const row = await db
    .insertInto('collaboration')
    .values({ name: values.name, encrypted: values.encrypted ? 1 : 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The node with this API key hash, if any. */
export async function nodeWithApiKeyHash(
  db: Kysely<Database>,
  hash: string,
): Promise<{ id: number; name: string | null } | undefined> {
  return db.selectFrom('node').select(['id', 'name']).where('api_key_hash', '=', hash).executeTakeFirst();
}

/** The id of the task of the collaboration with this name and image, if any. */
export async function taskIdByNameAndImage(
  db: Kysely<Database>,
  collaborationId: number,
  name: string,
  image: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('task')
    .select('id')
    .where('collaboration_id', '=', collaborationId)
    .where('name', '=', name)
    .where('image', '=', image)
    .executeTakeFirst();
  return row?.id;
}

export interface ImportedTask {
  readonly name: string;
  readonly description: string;
  readonly image: string;
  readonly collaborationId: number;
  readonly runId: number;
  readonly initiatorId: number;
  readonly createdAt: string;
  /** One pending result per organization. */
  readonly organizationIds: readonly number[];
}

/** Inserts a top-level task of no user with a pending result per organization; returns its id. */
export async function insertImportedTask(db: Kysely<Database>, task: ImportedTask): Promise<number> {
  const row = await db
    .insertInto('task')
    .values({
      name: task.name,
      description: task.description,
      image: task.image,
      collaboration_id: task.collaborationId,
      run_id: task.runId,
      parent_id: null,
      database: 'default',
      initiator_id: task.initiatorId,
      init_user_id: null,
      created_at: task.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (task.organizationIds.length)
    await db
      .insertInto('result')
      .values(
        task.organizationIds.map((organization_id) => ({
          task_id: row.id,
          organization_id,
          input: '',
          assigned_at: task.createdAt,
          status: 'pending',
        })),
      )
      .execute();
  return row.id;
}
