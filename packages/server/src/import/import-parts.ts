/**
 * The parts of an import that look up or make one record: an organization by name, a role by name, the `super`
 * role of an organization. They add what they made or found to the report; they run within the import's
 * transaction.
 */
import type { Transaction } from 'kysely';

import { DEFAULT_ROLES } from '../auth/rules.js';
import type { Database } from '../db/schema.js';
import type { FixtureOrganization } from './fixture.js';
import type { ImportReport } from './import-report.js';

export const SUPER_ROLE = 'super';

type Trx = Transaction<Database>;

export async function ensureOrganization(
  trx: Trx,
  org: FixtureOrganization,
  report: ImportReport,
): Promise<number> {
  const existing = await trx
    .selectFrom('organization')
    .select('id')
    .where('name', '=', org.name)
    .executeTakeFirst();
  if (existing) {
    report.skipped.organizations.push(org.name);
    return existing.id;
  }
  const row = await trx
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
  report.created.organizations.push(org.name);
  return row.id;
}

/** Default roles a fixture may give (the fixed roles of nodes and algorithm containers are not for users). */
export const ASSIGNABLE_DEFAULT_ROLES = DEFAULT_ROLES.map((r) => r.name).filter(
  (n) => n !== 'node' && n !== 'container',
);

/** A role of the organization, or a default role, by name. */
export async function findRole(trx: Trx, name: string, organizationId: number): Promise<number | undefined> {
  const own = await trx
    .selectFrom('role')
    .select('id')
    .where('name', '=', name)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (own) return own.id;
  if (!ASSIGNABLE_DEFAULT_ROLES.includes(name)) return undefined;
  return (
    await trx
      .selectFrom('role')
      .select('id')
      .where('name', '=', name)
      .where('organization_id', 'is', null)
      .executeTakeFirst()
  )?.id;
}

/** The organization's role `super` with every rule; created (and given missing rules) when needed. */
export async function ensureSuperRole(
  trx: Trx,
  organizationId: number,
  organizationName: string,
  allRules: readonly number[],
  report: ImportReport,
): Promise<number> {
  let role = await trx
    .selectFrom('role')
    .select('id')
    .where('name', '=', SUPER_ROLE)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!role) {
    role = await trx
      .insertInto('role')
      .values({
        name: SUPER_ROLE,
        description: 'Every rule (created by the fixture import)',
        organization_id: organizationId,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    report.created.roles.push(`${SUPER_ROLE} (${organizationName})`);
  }
  const roleId = role.id;
  const have = new Set(
    (await trx.selectFrom('role_rule').select('rule_id').where('role_id', '=', roleId).execute()).map(
      (r) => r.rule_id,
    ),
  );
  const add = allRules.filter((id) => !have.has(id));
  if (add.length)
    await trx
      .insertInto('role_rule')
      .values(add.map((rule_id) => ({ role_id: roleId, rule_id })))
      .execute();
  return roleId;
}

/** A user without an e-mail address in the fixture: `<username>@<domain>`, or a never-deliverable `.invalid` one. */
