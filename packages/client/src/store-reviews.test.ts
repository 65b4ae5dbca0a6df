/**
 * What the web UI's store pages read through the client: who the store takes the caller for, its users, the
 * reviews of an algorithm or a reviewer, every version of an image; and a task that names the databases a store
 * function reads. Real server on a free port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT_PASSWORD,
  averageDescription,
  digestOf,
  startTestApp,
  storeApi,
  userClientOf,
  type TestApp,
} from '@federa/testing';
import type { UserClient } from './user-client.js';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  port = await t.listen();
});
afterAll(async () => t?.close());

const clientFor = (username: string, password: string): Promise<UserClient> =>
  userClientOf(port, username, password);

describe('client.store for the web UI', () => {
  it('reads roles, users, reviews by algorithm and reviewer, and versions by image', async () => {
    const root = await clientFor('root', ROOT_PASSWORD);
    const org = await t.fx.organization();
    const person = await t.fx.user(org);
    const entry = await storeApi(t, 'POST', '/user', {
      token: t.rootToken,
      body: { username: person.username, roles: ['reviewer'] },
    });
    const reviewer = await clientFor(person.username, person.password);
    expect((await reviewer.store.me()).roles).toEqual(expect.arrayContaining(['reviewer']));
    expect((await root.store.me()).roles).toContain('store manager');
    const users = await root.store.users();
    expect(users.find((u) => u.id === entry.body.id)).toMatchObject({
      username: person.username,
      roles: ['reviewer'],
    });
    await expect(reviewer.store.users()).rejects.toThrow();

    const a = await root.store.submit(averageDescription(`reg.example.org/ui:1@${digestOf(41)}`, 'ui'));
    const b = await root.store.submit(averageDescription(`reg.example.org/ui:2@${digestOf(42)}`, 'ui'));
    const review = await root.store.assignReviewer(a.id, entry.body.id);
    const byAlgorithm = await root.store.reviews({ algorithmId: a.id });
    expect(byAlgorithm.map((r) => [r.id, r.status, r.reviewer.username])).toEqual([
      [review.id, 'under review', person.username],
    ]);
    expect(await root.store.reviews({ algorithmId: b.id })).toEqual([]);
    expect((await reviewer.store.reviews({ reviewerId: entry.body.id, status: 'under review' })).length).toBe(
      1,
    );

    // By image: one version, or with its digest exactly that one.
    expect(
      (await root.store.list({ image: 'reg.example.org/ui:2', status: 'all' })).map((x) => x.id),
    ).toEqual([b.id]);
    expect(
      (await root.store.list({ image: `reg.example.org/ui:1@${digestOf(41)}`, status: 'all' })).map(
        (x) => x.id,
      ),
    ).toEqual([a.id]);
  });

  it('sends the databases of a task in order, the first also as its database', async () => {
    const root = await clientFor('root', ROOT_PASSWORD);
    const org = await t.fx.organization();
    const mine = (await root.user.me()).organization.id;
    const collab = await root.collaboration.create({ name: 'store-dbs', organizationIds: [mine, org] });
    await root.node.create({ collaborationId: collab.id, organizationId: org });
    const created = await root.task.create({
      collaborationId: collab.id,
      organizations: [org],
      image: 'reg.example.org/plain:1',
      input: { method: 'm', args: [], kwargs: {} },
      databases: [{ label: 'cohort' }, { label: 'extra' }],
    });
    const task = await root.task.get(created.id);
    expect(task.database).toBe('cohort');
    expect((task as unknown as { databases: unknown }).databases).toEqual([
      { label: 'cohort' },
      { label: 'extra' },
    ]);
  });

  it('reads the column names the nodes of a collaboration shared', async () => {
    const root = await clientFor('root', ROOT_PASSWORD);
    const [a, b] = [await t.fx.organization(), await t.fx.organization()];
    const collab = await t.fx.collaboration([a, b]);
    const node = await t.fx.node(a, collab);
    await t.fx.node(b, collab);
    await t.ctx.dbh.db
      .insertInto('node_config')
      .values(['age', 'sex'].map((value) => ({ node_id: node.id, key: 'columns.cohort', value })))
      .execute();
    expect(await root.collaboration.columns(collab, 'cohort')).toEqual({
      data: [
        { name: 'age', organization_ids: [a] },
        { name: 'sex', organization_ids: [a] },
      ],
      database: 'cohort',
      not_shared: [b],
    });
    expect((await root.collaboration.columns(collab)).data).toEqual([]);
  });
});
