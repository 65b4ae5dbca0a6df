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
import type { DialectName } from '../db/uri.js';
import { nowStored } from '../http/datetime.js';
import { defaultNodeName, insertNode, nodeOfOrganizationIn } from '../repositories/node.js';
import { collaborationIdByName, insertMembers, memberIds } from '../repositories/collaboration.js';
import {
  allRuleIds,
  existingUsernames,
  inImportTransaction,
  insertCollaborationRow,
  insertImportedTask,
  nodeWithApiKeyHash,
  organizationIdByName,
  taskIdByNameAndImage,
  usernameOfEmail,
} from '../repositories/import.js';
import { insertUserRows, usernameTaken } from '../repositories/user.js';
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
  dbh: { readonly db: Kysely<Database>; readonly dialect: DialectName },
  config: Pick<ServerConfig, 'bcrypt_rounds'>,
  fixture: Fixture,
): Promise<ImportReport> {
  // Hash outside the transaction (bcrypt is slow, and SQLite holds its write lock for the whole transaction), all
  // at once: bcrypt works on libuv's thread pool, so the hashes use every core.
  // Users already there are skipped below: their passwords are not hashed (a second import costs no bcrypt time).
  const { db, dialect } = dbh;
  const wanted = fixture.organizations.flatMap((org) => org.users);
  const existing = await existingUsernames(
    db,
    wanted.map((u) => u.username),
  );
  const users = wanted.filter((u) => !existing.has(u.username));
  const passwordHashes = new Map<string, string>(
    await Promise.all(
      users.map(
        async (user) => [user.username, await hashPassword(user.password, config.bcrypt_rounds)] as const,
      ),
    ),
  );

  return inImportTransaction(db, async (trx) => {
    const report: ImportReport = {
      created: { organizations: [], users: [], roles: [], collaborations: [], nodes: [], tasks: [] },
      nodeKeys: [],
      skipped: { organizations: [], users: [], collaborations: [], nodes: [], tasks: [] },
    };
    const allRules = await allRuleIds(trx);
    if (allRules.length === 0)
      throw new FixtureError(
        '',
        'the database has no rules yet: start the server once (or run its migrations and seeding) before importing',
      );

    const orgIds = new Map<string, number>();
    for (const [i, org] of fixture.organizations.entries()) {
      const id = await ensureOrganization(trx, org, report, `organizations[${i}]`);
      orgIds.set(org.name, id);
      for (const [j, user] of org.users.entries()) {
        if (await usernameTaken(trx, user.username)) {
          report.skipped.users.push(user.username);
          continue;
        }
        const email = user.email ?? defaultEmail(user.username, org.domain);
        const taken = await usernameOfEmail(trx, email);
        if (taken !== undefined)
          throw new FixtureError(
            `organizations[${i}].users[${j}].email`,
            `the e-mail address ${email} belongs to the existing user '${taken}'; give this user another email`,
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
        const id = orgIds.get(p.name) ?? (await organizationIdByName(trx, p.name));
        if (id === undefined)
          throw new FixtureError(
            `${at}.participants[${j}].name`,
            `no organization named '${p.name}' in the fixture or the database`,
          );
        members.push({ id, name: p.name });
      }

      let collaborationId = await collaborationIdByName(trx, collab.name);
      if (collaborationId !== undefined) report.skipped.collaborations.push(collab.name);
      else {
        collaborationId = await insertCollaborationRow(trx, {
          name: collab.name,
          encrypted: collab.encrypted,
        });
        report.created.collaborations.push(collab.name);
      }
      const have = new Set(await memberIds(trx, collaborationId));
      await insertMembers(
        trx,
        collaborationId,
        members.filter((m) => !have.has(m.id)).map((m) => m.id),
      );

      for (const [j, p] of collab.participants.entries()) {
        const member = members[j];
        if (!member) continue;
        const name = defaultNodeName(p.name, collab.name, {
          organizationId: member.id,
          collaborationId,
        });
        if ((await nodeOfOrganizationIn(trx, member.id, collaborationId)) !== undefined) {
          report.skipped.nodes.push(name);
          continue;
        }
        const apiKey = p.api_key ?? randomUUID();
        const hash = hashApiKey(apiKey);
        const sameKey = await nodeWithApiKeyHash(trx, hash);
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

      const allMembers = await memberIds(trx, collaborationId);
      for (const image of collab.tasks) {
        const label = `${collab.name}: ${image}`;
        if ((await taskIdByNameAndImage(trx, collaborationId, EXAMPLE_TASK_NAME, image)) !== undefined) {
          report.skipped.tasks.push(label);
          continue;
        }
        const initiator = members[0]?.id ?? allMembers[0];
        if (initiator === undefined) {
          throw new FixtureError(`${at}.tasks`, 'a collaboration without participants cannot have tasks');
        }
        await insertImportedTask(trx, {
          name: EXAMPLE_TASK_NAME,
          description: `Imported from a fixture (image ${image})`,
          image,
          collaborationId,
          runId: await nextRunId(trx, dialect),
          initiatorId: initiator,
          createdAt: nowStored(),
          organizationIds: allMembers,
        });
        report.created.tasks.push(label);
      }
    }
    return report;
  });
}

const defaultEmail = (username: string, domain: string | null): string =>
  `${username}@${domain && domain.includes('.') ? domain : 'fixture.invalid'}`;
