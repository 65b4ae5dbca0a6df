/**
 * The parts of an import that look up or make one record: an organization by name, a role by name, the `super`
 * role of an organization. They add what they made or found to the report; they run within the import's
 * transaction.
 */
import type { Transaction } from 'kysely';

import { DEFAULT_ROLES } from '../auth/rules.js';
import type { Database } from '../db/schema.js';
import {
  addRulesToRole,
  insertImportedOrganization,
  insertRoleRow,
  organizationIdByName,
  roleIdByName,
} from '../repositories/import.js';
import { organizationNamed } from '../repositories/organization-names.js';
import { ruleIdsOfRole } from '../repositories/role.js';
import { FixtureError, type FixtureOrganization } from './fixture.js';
import type { ImportReport } from './import-report.js';

export const SUPER_ROLE = 'super';

type Trx = Transaction<Database>;

export async function ensureOrganization(
  trx: Trx,
  org: FixtureOrganization,
  report: ImportReport,
  at: string,
): Promise<number> {
  const existing = await organizationIdByName(trx, org.name);
  if (existing !== undefined) {
    report.skipped.organizations.push(org.name);
    return existing;
  }
  const holder = await organizationNamed(trx, org.name);
  if (holder)
    throw new FixtureError(
      `${at}.name`,
      `'${org.name}' differs only in case from the existing organization '${holder.name}' (${holder.id}); organization names must be unique regardless of case: use the existing name or another one`,
    );
  const id = await insertImportedOrganization(trx, org);
  report.created.organizations.push(org.name);
  return id;
}

/** Default roles a fixture may give (the fixed roles of nodes and algorithm containers are not for users). */
export const ASSIGNABLE_DEFAULT_ROLES = DEFAULT_ROLES.map((r) => r.name).filter(
  (n) => n !== 'node' && n !== 'container',
);

/** A role of the organization, or a default role, by name. */
export async function findRole(trx: Trx, name: string, organizationId: number): Promise<number | undefined> {
  const own = await roleIdByName(trx, name, organizationId);
  if (own !== undefined) return own;
  if (!ASSIGNABLE_DEFAULT_ROLES.includes(name)) return undefined;
  return roleIdByName(trx, name, null);
}

/** The organization's role `super` with every rule; created (and given missing rules) when needed. */
export async function ensureSuperRole(
  trx: Trx,
  organizationId: number,
  organizationName: string,
  allRules: readonly number[],
  report: ImportReport,
): Promise<number> {
  let roleId = await roleIdByName(trx, SUPER_ROLE, organizationId);
  if (roleId === undefined) {
    roleId = await insertRoleRow(trx, {
      name: SUPER_ROLE,
      description: 'Every rule (created by the fixture import)',
      organization_id: organizationId,
    });
    report.created.roles.push(`${SUPER_ROLE} (${organizationName})`);
  }
  const have = new Set(await ruleIdsOfRole(trx, roleId));
  await addRulesToRole(
    trx,
    roleId,
    allRules.filter((id) => !have.has(id)),
  );
  return roleId;
}

/** A user without an e-mail address in the fixture: `<username>@<domain>`, or a never-deliverable `.invalid` one. */
