import type { Kysely } from 'kysely';

/**
 * `member (organization_id, collaboration_id)`: the collaborations of an organization. The primary key starts with
 * the collaboration, so every lookup by organization read the whole table: the caller of each user's request (the
 * collaborations of their organization, auth/caller.ts), each organization of a listing (its collaborations) and
 * the partners an organization listing is scoped by (docs/performance.md, fifth session).
 */
export const memberOrganizationIndex = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createIndex('member_organization_collaboration')
      .on('member')
      .columns(['organization_id', 'collaboration_id'])
      .execute();
  },
};
