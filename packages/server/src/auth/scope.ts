import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Caller } from './caller.js';

/**
 * Scope helpers shared by the routes: which collaborations and organizations a caller's organization reaches.
 */

/** Ids of the collaborations an organization is a member of. */
export async function collaborationsOf(db: Kysely<Database>, organizationId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('member')
    .select('collaboration_id')
    .where('organization_id', '=', organizationId)
    .execute();
  return rows.map((r) => r.collaboration_id);
}

/** Whether an organization is a member of a collaboration. */
export async function isMember(
  db: Kysely<Database>,
  organizationId: number,
  collaborationId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('member')
    .select('organization_id')
    .where('organization_id', '=', organizationId)
    .where('collaboration_id', '=', collaborationId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The collaborations a caller acts within: a node or container only its own collaboration; a user every
 * collaboration of their organization.
 */
export async function callerCollaborations(db: Kysely<Database>, caller: Caller): Promise<number[]> {
  if (caller.kind !== 'user') return caller.collaborationId === null ? [] : [caller.collaborationId];
  return collaborationsOf(db, caller.organizationId);
}

/** Ids of organizations sharing at least one collaboration with the given one, itself included. */
export async function partnerOrganizations(db: Kysely<Database>, organizationId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('member as m')
    .innerJoin('member as mine', 'mine.collaboration_id', 'm.collaboration_id')
    .select('m.organization_id')
    .where('mine.organization_id', '=', organizationId)
    .distinct()
    .execute();
  return [...new Set([organizationId, ...rows.map((r) => r.organization_id)])];
}
