/**
 * A node's container tokens and what their containers may post (docs/security.md#across-organizations): a token
 * only for a task that runs at the node's organization, and sub-tasks only with exactly the parent's image and only
 * by a container of an organization the parent runs at, so no container posts in another organization's
 * researcher's name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, taskWorld, type TestApp } from '@federa/testing';

let t: TestApp;
let w: Awaited<ReturnType<typeof taskWorld>>;
const IMAGE = 'harbor.example.org/algorithms/average:1.0';
beforeAll(async () => {
  t = await startTestApp();
  w = await taskWorld(t);
});
afterAll(async () => t.close());

/** A task of the researcher of A that runs at `orgs` only. */
const researcherTask = (orgs: number[]) =>
  t.fx.task(w.collab, orgs, { image: IMAGE, initiatorId: w.orgA, initUserId: w.researcher.id });

const containerToken = async (nodeToken: string, taskId: number) =>
  t.api('POST', '/token/container', { token: nodeToken, body: { task_id: taskId, image: IMAGE } });

const subTask = (container: string, image = IMAGE) =>
  t.api('POST', '/task', {
    token: container,
    body: {
      collaboration_id: w.collab,
      organizations: [{ id: w.orgB, input: 'x' }],
      name: 'sub',
      image,
      description: '',
    },
  });

describe('container tokens', () => {
  it('are given only for a task that runs at the node’s organization', async () => {
    const onlyA = await researcherTask([w.orgA]);
    const refused = await containerToken(await w.nodeB.token(), onlyA.id);
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toBe(`Task ${onlyA.id} has no run for this node's organization`);
    const own = await containerToken(await w.nodeA.token(), onlyA.id);
    expect(own.status).toBe(200);
  });

  it('post sub-tasks with exactly the parent’s image, not one ending with it', async () => {
    const parent = await researcherTask([w.orgA, w.orgB]);
    const container = (await containerToken(await w.nodeB.token(), parent.id)).body.container_token as string;
    for (const image of [`evil.example.org/${IMAGE}`, `x${IMAGE}`]) {
      const r = await subTask(container, image);
      expect(r.status).toBe(401);
      expect(r.body.msg).toContain(`'${image}' is not '${IMAGE}'`);
    }
    const ok = await subTask(container);
    expect(ok.status).toBe(201);
    expect(ok.body.init_user).toBe(w.researcher.id);
  });

  it('post no sub-task of a parent that does not run at their organization (a token made without that check)', async () => {
    const onlyA = await researcherTask([w.orgA]);
    const nodeB = await t.ctx.dbh.db
      .selectFrom('node')
      .selectAll()
      .where('id', '=', w.nodeB.id)
      .executeTakeFirstOrThrow();
    const forged = await t.ctx.tokens.container(
      {
        node_id: nodeB.id,
        organization_id: w.orgB,
        collaboration_id: w.collab,
        task_id: onlyA.id,
        image: IMAGE,
        database: 'default',
      },
      3600,
    );
    const before = await t.ctx.dbh.db
      .selectFrom('task')
      .select('id')
      .where('parent_id', '=', onlyA.id)
      .execute();
    const r = await subTask(forged);
    expect(r.status).toBe(401);
    expect(r.body.msg).toContain(`has no run for organization ${w.orgB}`);
    const after = await t.ctx.dbh.db
      .selectFrom('task')
      .select('id')
      .where('parent_id', '=', onlyA.id)
      .execute();
    expect(after).toEqual(before);
  });
});
