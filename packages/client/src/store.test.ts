/**
 * The TypeScript client and the algorithm store: a researcher searches the catalogue and creates a task from an
 * algorithm, a function and its arguments; a wrong argument comes back as the server's error naming it. Real server
 * on a free port.
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

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startTestApp();
  port = await t.listen();
});
afterAll(async () => t?.close());

describe('client.store', () => {
  it('lists, searches, and creates a task from algorithm + function + arguments', async () => {
    const root = await userClientOf(port, 'root', ROOT_PASSWORD);
    await storeApi(t, 'PATCH', '/policy', {
      token: t.rootToken,
      body: { min_reviewers: 1, min_reviewing_organizations: 1 },
    });
    const org = await t.fx.organization();
    const reviewer = await t.fx.user(org);
    const reviewerEntry = await storeApi(t, 'POST', '/user', {
      token: t.rootToken,
      body: { username: reviewer.username, roles: ['reviewer'] },
    });
    const submitted = await root.store.submit(averageDescription(`reg.example.org/average:1@${digestOf(3)}`));
    expect(submitted.status).toBe('awaiting reviewer assignment');
    const review = await root.store.assignReviewer(submitted.id, reviewerEntry.body.id);
    const asReviewer = await userClientOf(port, reviewer.username, reviewer.password);
    // A reviewer finds their own open reviews: who the store takes them for, then the reviews of that user.
    const me = await asReviewer.store.me();
    expect(me.username).toBe(reviewer.username);
    expect(me.roles).toContain('reviewer');
    const open = await asReviewer.store.reviews({ reviewerId: me.id, status: 'under review' });
    expect(open.map((r) => [r.id, r.algorithm_id, r.reviewer.username])).toEqual([
      [review.id, submitted.id, reviewer.username],
    ]);
    expect(await asReviewer.store.reviews({ reviewerId: me.id, status: 'approved' })).toEqual([]);
    expect((await root.store.me()).roles).toContain('store manager');
    expect((await asReviewer.store.approve(review.id, 'ok')).algorithm_status).toBe('approved');

    expect((await root.store.list({ search: 'mean column' })).map((a) => a.name)).toEqual(['average']);
    expect(await root.store.list({ search: 'nothing-like-this' })).toEqual([]);

    const mine = (await root.user.me()).organization.id;
    const collab = await root.collaboration.create({ name: 'store-client', organizationIds: [mine, org] });
    await root.node.create({ collaborationId: collab.id, organizationId: org });
    const created = await root.store.createTask({
      algorithmId: submitted.id,
      function: 'central_average',
      arguments: { column_name: 'age' },
      collaborationId: collab.id,
      organizations: [org],
    });
    expect(created.image).toBe(`reg.example.org/average:1@${digestOf(3)}`);
    await expect(
      root.store.createTask({
        algorithmId: submitted.id,
        function: 'central_average',
        arguments: { column_name: 3 },
        collaborationId: collab.id,
        organizations: [org],
      }),
    ).rejects.toThrow("argument 'column_name' must be a column name (string)");
    await expect(
      root.store.createTask({
        algorithmId: submitted.id,
        function: 'nope',
        arguments: {},
        collaborationId: collab.id,
        organizations: [org],
      }),
    ).rejects.toThrow("has no function 'nope'");
  });
});
