import { sql, type Kysely } from 'kysely';

/**
 * An organization has at most one node in a collaboration, now a rule of the database: `node (organization_id,
 * collaboration_id)` unique, in place of the plain index of the same columns (0001 `node_org_collab`). The API
 * checked it before writing (`POST /node`, `PATCH /node/{id}`), but two requests at the same moment both passed the
 * check on PostgreSQL (of eight asked for at once, two were registered): the organization then had two nodes, and
 * each of them would fetch and run the organization's runs. Nodes left without a collaboration (it was deleted)
 * do not count: both databases take nulls as distinct in a unique index.
 *
 * A database that already holds two nodes of one organization in one collaboration is not changed: the migration
 * stops with a message that names them, since which node a hospital runs is not for the server to choose
 * (docs/api.md, "Nodes").
 */
export const oneNodePerOrganization = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    const { rows } = await sql<{ organization_id: number; collaboration_id: number; id: number }>`
      select n.organization_id, n.collaboration_id, n.id from node n
      where n.collaboration_id is not null and exists (
        select 1 from node o where o.organization_id = n.organization_id
          and o.collaboration_id = n.collaboration_id and o.id <> n.id)
      order by n.collaboration_id, n.organization_id, n.id`.execute(db);
    if (rows.length > 0) {
      const groups = new Map<string, number[]>();
      for (const r of rows) {
        const key = `organization ${r.organization_id} in collaboration ${r.collaboration_id}`;
        groups.set(key, [...(groups.get(key) ?? []), Number(r.id)]);
      }
      const list = [...groups].map(([key, ids]) => `${key}: nodes ${ids.join(', ')}`).join('; ');
      throw new Error(
        `An organization has at most one node in a collaboration, and this database holds more: ${list}. ` +
          'Delete all but the node each organization runs (DELETE /api/node/{id} with the server version that ' +
          'made them), then start this version again.',
      );
    }
    await db.schema.dropIndex('node_org_collab').execute();
    await db.schema
      .createIndex('node_one_per_organization')
      .on('node')
      .columns(['organization_id', 'collaboration_id'])
      .unique()
      .execute();
  },
};
