import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { DEFAULT_ROLES, RULES, ruleKeyOf } from '../auth/rules.js';
import type { ServerConfig } from '../config/schema.js';
import { generatePassword, hashPassword } from '../auth/passwords.js';
import { insertUserRows } from '../repositories/user.js';

export interface BootstrapOutcome {
  rulesCreated: number;
  rolesCreated: string[];
  /** Set when the root user was created now. */
  rootCreated?: { username: string; email: string; organization: string; generatedPassword?: string };
}

/**
 * Start-up seeding (docs/access-control.md#at-start): register missing rules, create the fixed and default roles when missing
 * (Root also receives rules registered later), and create the root user on first start.
 */
export async function bootstrap(db: Kysely<Database>, config: ServerConfig): Promise<BootstrapOutcome> {
  return db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('rule').select(['id', 'name', 'operation', 'scope']).execute();
    const byKey = new Map(existing.map((r) => [ruleKeyOf(r), r.id]));
    let rulesCreated = 0;
    for (const r of RULES) {
      if (byKey.has(r.key)) continue;
      const row = await trx
        .insertInto('rule')
        .values({ name: r.name, operation: r.operation, scope: r.scope, description: r.description })
        .returning('id')
        .executeTakeFirstOrThrow();
      byKey.set(r.key, row.id);
      rulesCreated += 1;
    }
    const rolesCreated: string[] = [];
    for (const role of DEFAULT_ROLES) {
      let row = await trx
        .selectFrom('role')
        .select('id')
        .where('name', '=', role.name)
        .where('organization_id', 'is', null)
        .executeTakeFirst();
      const isNew = !row;
      if (!row) {
        row = await trx
          .insertInto('role')
          .values({ name: role.name, description: role.description, organization_id: null })
          .returning('id')
          .executeTakeFirstOrThrow();
        rolesCreated.push(role.name);
      }
      // Fixed roles and Root follow the catalogue; other default roles are only filled when created.
      if (isNew || role.name === 'Root' || role.name === 'node' || role.name === 'container') {
        const have = new Set(
          (await trx.selectFrom('role_rule').select('rule_id').where('role_id', '=', row.id).execute()).map(
            (r) => r.rule_id,
          ),
        );
        const add = role.rules
          .map((k) => byKey.get(k))
          .filter((id): id is number => id !== undefined && !have.has(id));
        if (add.length)
          await trx
            .insertInto('role_rule')
            .values(add.map((rule_id) => ({ role_id: row.id, rule_id })))
            .execute();
      }
    }

    const outcome: BootstrapOutcome = { rulesCreated, rolesCreated };
    const root = config.root_user;
    const rootExists = await trx
      .selectFrom('user')
      .select('id')
      .where('username', '=', root.username)
      .executeTakeFirst();
    if (!rootExists) {
      let org = await trx
        .selectFrom('organization')
        .select('id')
        .where('name', '=', root.organization)
        .executeTakeFirst();
      if (!org) {
        org = await trx
          .insertInto('organization')
          .values({ name: root.organization, public_key: '' })
          .returning('id')
          .executeTakeFirstOrThrow();
      }
      const password = root.password ?? generatePassword();
      const rootRole = await trx
        .selectFrom('role')
        .select('id')
        .where('name', '=', 'Root')
        .where('organization_id', 'is', null)
        .executeTakeFirstOrThrow();
      await insertUserRows(trx, {
        username: root.username,
        email: root.email,
        firstname: 'Root',
        lastname: 'User',
        passwordHash: await hashPassword(password, config.bcrypt_rounds),
        organizationId: org.id,
        roleIds: [rootRole.id],
        ruleIds: [],
      });
      outcome.rootCreated = {
        username: root.username,
        email: root.email,
        organization: root.organization,
        ...(root.password === undefined ? { generatedPassword: password } : {}),
      };
    }
    return outcome;
  });
}
