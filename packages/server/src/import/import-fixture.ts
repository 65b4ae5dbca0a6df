/**
 * Loads a fixture (docs/import-format.md) into the database in one transaction: organizations and their users (with
 * the roles the file names and no others; `super`, every rule, is made for an organization when a user of it names
 * it), collaborations with their members, one node per participant with the fixture's API key or a generated one
 * (stored hashed; the report carries each new node's key once), and per image an "Example task" with one result
 * per member.
 *
 * Running it again adds only what is missing: organizations, users and collaborations are matched by name, nodes by
 * (organization, collaboration), example tasks by (collaboration, image). Nothing existing is changed. Fixture
 * passwords are not checked against the password policy (they are for demos and tests).
 *
 * The rules must be registered (the server's start-up seeding, `bootstrap`) before an import.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';

import { hashApiKey, hashPassword } from '../auth/passwords.js';
import type { ServerConfig } from '../config/schema.js';
import type { Database } from '../db/schema.js';
import { nowStored } from '../http/datetime.js';
import { defaultNodeName, insertNode } from '../repositories/node.js';
import { lastTaskId } from '../repositories/collaboration.js';
import { insertUserRows } from '../repositories/user.js';
import { nextRunId } from '../repositories/task/index.js';
import { FixtureError, type Fixture } from './fixture.js';
import {
  ASSIGNABLE_DEFAULT_ROLES,
  ensureOrganization,
  ensureSuperRole,
  findRole,
  SUPER_ROLE,
} from './import-parts.js';
import type { ImportReport } from './import-report.js';

export { SUPER_ROLE };
export type { ImportReport };

export const EXAMPLE_TASK_NAME = 'Example task';

export async function importFixture(
  db: Kysely<Database>,
  config: Pick<ServerConfig, 'bcrypt_rounds'>,
  fixture: Fixture,
): Promise<ImportReport> {
  // Hash outside the transaction (bcrypt is slow, and SQLite holds its write lock for the whole transaction), all
  // at once: bcrypt works on libuv's thread pool, so the hashes use every core.
  // Users already there are skipped below: their passwords are not hashed (a second import costs no bcrypt time).
  const wanted = fixture.organizations.flatMap((org) => org.users);
  const existing =
    wanted.length === 0
      ? new Set<string>()
      : new Set(
          (
            await db
              .selectFrom('user')
              .select('username')
              .where(
                'username',
                'in',
                wanted.map((u) => u.username),
              )
              .execute()
          ).map((u) => u.username),
        );
  const users = wanted.filter((u) => !existing.has(u.username));
  const passwordHashes = new Map<string, string>(
    await Promise.all(
      users.map(
        async (user) => [user.username, await hashPassword(user.password, config.bcrypt_rounds)] as const,
      ),
    ),
  );

  return db.transaction().execute(async (trx) => {
    const report: ImportReport = {
      created: { organizations: [], users: [], roles: [], collaborations: [], nodes: [], tasks: [] },
      nodeKeys: [],
      skipped: { organizations: [], users: [], collaborations: [], nodes: [], tasks: [] },
    };
    const allRules = (await trx.selectFrom('rule').select('id').execute()).map((r) => r.id);
    if (allRules.length === 0)
      throw new FixtureError(
        '',
        'the database has no rules yet: start the server once (or run its migrations and seeding) before importing',
      );

    const orgIds = new Map<string, number>();
    for (const [i, org] of fixture.organizations.entries()) {
      const id = await ensureOrganization(trx, org, report);
      orgIds.set(org.name, id);
      for (const [j, user] of org.users.entries()) {
        const existing = await trx
          .selectFrom('user')
          .select('id')
          .where('username', '=', user.username)
          .executeTakeFirst();
        if (existing) {
          report.skipped.users.push(user.username);
          continue;
        }
        const email = user.email ?? defaultEmail(user.username, org.domain);
        const taken = await trx
          .selectFrom('user')
          .select('username')
          .where('email', '=', email)
          .executeTakeFirst();
        if (taken)
          throw new FixtureError(
            `organizations[${i}].users[${j}].email`,
            `the e-mail address ${email} belongs to the existing user '${taken.username}'; give this user another email`,
          );
        const passwordHash = passwordHashes.get(user.username);
        if (passwordHash === undefined)
          // It existed when the passwords were hashed and is gone now: never store a user without a password.
          throw new FixtureError(
            `organizations[${i}].users[${j}].username`,
            `the user '${user.username}' was removed while importing; run the import again`,
          );
        const roleIds: number[] = [];
        for (const [k, roleName] of user.roles.entries()) {
          const roleId =
            roleName === SUPER_ROLE
              ? await ensureSuperRole(trx, id, org.name, allRules, report)
              : await findRole(trx, roleName, id);
          if (roleId === undefined)
            throw new FixtureError(
              `organizations[${i}].users[${j}].roles[${k}]`,
              `no role '${roleName}' for this organization: use ${SUPER_ROLE} (every rule), a default role (${ASSIGNABLE_DEFAULT_ROLES.join(', ')}) or a role the organization has`,
            );
          if (!roleIds.includes(roleId)) roleIds.push(roleId);
        }
        await insertUserRows(trx, {
          username: user.username,
          firstname: user.firstname,
          lastname: user.lastname,
          email,
          passwordHash,
          organizationId: id,
          roleIds,
          ruleIds: [],
        });
        report.created.users.push(user.username);
      }
    }

    for (const [i, collab] of fixture.collaborations.entries()) {
      const at = `collaborations[${i}]`;
      const members: { id: number; name: string }[] = [];
      for (const [j, p] of collab.participants.entries()) {
        const id =
          orgIds.get(p.name) ??
          (await trx.selectFrom('organization').select('id').where('name', '=', p.name).executeTakeFirst())
            ?.id;
        if (id === undefined)
          throw new FixtureError(
            `${at}.participants[${j}].name`,
            `no organization named '${p.name}' in the fixture or the database`,
          );
        members.push({ id, name: p.name });
      }

      let collabRow = await trx
        .selectFrom('collaboration')
        .select('id')
        .where('name', '=', collab.name)
        .executeTakeFirst();
      if (collabRow) report.skipped.collaborations.push(collab.name);
      else {
        collabRow = await trx
          .insertInto('collaboration')
          .values({ name: collab.name, encrypted: collab.encrypted ? 1 : 0 })
          .returning('id')
          .executeTakeFirstOrThrow();
        report.created.collaborations.push(collab.name);
      }
      const collaborationId = collabRow.id;
      const have = new Set(
        (
          await trx
            .selectFrom('member')
            .select('organization_id')
            .where('collaboration_id', '=', collaborationId)
            .execute()
        ).map((m) => m.organization_id),
      );
      const missing = members.filter((m) => !have.has(m.id));
      const since = await lastTaskId(trx);
      if (missing.length)
        await trx
          .insertInto('member')
          .values(
            missing.map((m) => ({
              collaboration_id: collaborationId,
              organization_id: m.id,
              since_task_id: since,
            })),
          )
          .execute();

      for (const [j, p] of collab.participants.entries()) {
        const member = members[j];
        if (!member) continue;
        const name = defaultNodeName(p.name, collab.name, {
          organizationId: member.id,
          collaborationId,
        });
        const existing = await trx
          .selectFrom('node')
          .select('id')
          .where('organization_id', '=', member.id)
          .where('collaboration_id', '=', collaborationId)
          .executeTakeFirst();
        if (existing) {
          report.skipped.nodes.push(name);
          continue;
        }
        const apiKey = p.api_key ?? randomUUID();
        const hash = hashApiKey(apiKey);
        const sameKey = await trx
          .selectFrom('node')
          .select(['id', 'name'])
          .where('api_key_hash', '=', hash)
          .executeTakeFirst();
        if (sameKey)
          throw new FixtureError(
            `${at}.participants[${j}].api_key`,
            `this API key is already the key of node '${sameKey.name ?? sameKey.id}'; every node needs its own`,
          );
        await insertNode(trx, {
          name,
          organizationId: member.id,
          collaborationId,
          apiKeyHash: hash,
        });
        report.created.nodes.push(name);
        report.nodeKeys.push({
          node: name,
          organization: p.name,
          collaboration: collab.name,
          api_key: apiKey,
        });
      }

      const allMembers = (
        await trx
          .selectFrom('member')
          .select('organization_id')
          .where('collaboration_id', '=', collaborationId)
          .orderBy('organization_id')
          .execute()
      ).map((m) => m.organization_id);
      for (const image of collab.tasks) {
        const label = `${collab.name}: ${image}`;
        const existing = await trx
          .selectFrom('task')
          .select('id')
          .where('collaboration_id', '=', collaborationId)
          .where('name', '=', EXAMPLE_TASK_NAME)
          .where('image', '=', image)
          .executeTakeFirst();
        if (existing) {
          report.skipped.tasks.push(label);
          continue;
        }
        const initiator = members[0]?.id ?? allMembers[0];
        if (initiator === undefined) {
          throw new FixtureError(`${at}.tasks`, 'a collaboration without participants cannot have tasks');
        }
        const now = nowStored();
        const task = await trx
          .insertInto('task')
          .values({
            name: EXAMPLE_TASK_NAME,
            description: `Imported from a fixture (image ${image})`,
            image,
            collaboration_id: collaborationId,
            run_id: await nextRunId(trx),
            parent_id: null,
            database: 'default',
            initiator_id: initiator,
            init_user_id: null,
            created_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        if (allMembers.length)
          await trx
            .insertInto('result')
            .values(
              allMembers.map((organization_id) => ({
                task_id: task.id,
                organization_id,
                input: '',
                assigned_at: now,
                status: 'pending',
              })),
            )
            .execute();
        report.created.tasks.push(label);
      }
    }
    return report;
  });
}

const defaultEmail = (username: string, domain: string | null): string =>
  `${username}@${domain && domain.includes('.') ? domain : 'fixture.invalid'}`;
