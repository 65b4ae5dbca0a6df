import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';
import { PresenceWrites } from './presence-writes.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const statuses = async (ids: number[]): Promise<(string | null)[]> => {
  const rows = await t.ctx.dbh.db
    .selectFrom('node')
    .select(['id', 'status'])
    .where('id', 'in', ids)
    .execute();
  return ids.map((id) => rows.find((r) => r.id === id)?.status ?? null);
};

describe('PresenceWrites', () => {
  it('writes the marks of one turn together, each caller resolved once its mark is stored; the last mark of a node wins', async () => {
    const org = await t.fx.organization();
    const orgs = [org, await t.fx.organization(), await t.fx.organization()];
    const collab = await t.fx.collaboration(orgs);
    const nodes = await Promise.all(orgs.map((o) => t.fx.node(o, collab)));
    const ids = nodes.map((n) => n.id);
    await t.ctx.dbh.db
      .insertInto('node_config')
      .values({ node_id: ids[2]!, key: 'encryption', value: 'False' })
      .execute();
    const writes = new PresenceWrites(() => t.ctx.dbh.db, 0);
    const before = Date.now();
    await Promise.all([
      writes.online('node', ids[0]!),
      writes.online('node', ids[1]!),
      writes.online('node', ids[2]!),
      // Asked after the online mark of the same turn: the node ends offline, its shared configuration deleted.
      writes.offline('node', ids[2]!),
    ]);
    expect(await statuses(ids)).toEqual(['online', 'online', 'offline']);
    const seen = await t.ctx.dbh.db
      .selectFrom('node')
      .select('last_seen')
      .where('id', '=', ids[0]!)
      .executeTakeFirst();
    expect(Date.parse(`${seen?.last_seen}Z`)).toBeGreaterThanOrEqual(before - 1000);
    const config = await t.ctx.dbh.db
      .selectFrom('node_config')
      .selectAll()
      .where('node_id', '=', ids[2]!)
      .execute();
    expect(config).toEqual([]);
    // A later turn: its own write.
    await writes.offline('node', ids[0]!);
    expect(await statuses(ids)).toEqual(['offline', 'online', 'offline']);
  });
});
