/**
 * `client.task.kill(id)` (docs/run-statuses.md#kill): whoever may post a task may kill it, and the kill reaches its
 * sub-tasks at every depth. Real server on a free port; the test plays the node (statuses) with fixtures.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';

import { startTestApp, userClientOf, type TestApp } from '@federa/testing';
import { PermissionError, ValidationError } from './errors.js';
import type { UserClient } from './user-client.js';

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp();
  port = await t.listen();
});

afterAll(async () => {
  await t?.close();
});

async function researcher(organizationId: number): Promise<UserClient> {
  const user = await t.fx.user(organizationId, { roles: ['Researcher'] });
  return userClientOf(port, user.username, user.password);
}

it("lets a Researcher kill their organization's task tree, every run killed by user, and not another's", async () => {
  const mine = await t.fx.organization();
  const theirs = await t.fx.organization();
  const collab = await t.fx.collaboration([mine, theirs]);
  const node = await t.fx.node(mine, collab);
  const me = await researcher(mine);
  const other = await researcher(theirs);

  const task = await me.task.create({
    collaborationId: collab,
    organizations: [mine],
    name: 'to kill',
    image: 'federa/average-python:local',
    input: { method: 'chain', kwargs: { organizations: [theirs, mine] }, master: true },
  });
  // The tree the master would grow: a sub-task and a sub-sub-task.
  const sub = await t.fx.task(collab, [theirs], { parentId: task.id, runId: task.run_id, initiatorId: mine });
  const subSub = await t.fx.task(collab, [mine], { parentId: sub.id, runId: task.run_id, initiatorId: mine });
  const patched = await t.api('PATCH', `/result/${(await me.task.results(task.id))[0]!.id}`, {
    token: await node.token(),
    body: { status: 'active' },
  });
  expect(patched.status).toBe(200);

  const refused = await other.task.kill(task.id).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(PermissionError);
  expect((refused as Error).message).toContain(`You lack the permission to kill task ${task.id}`);

  await me.task.kill(task.id);
  for (const id of [task.id, sub.id, subSub.id]) {
    expect((await me.task.results(id)).map((r) => r.status)).toEqual(['killed by user']);
    expect((await me.task.get(id)).complete).toBe(true);
  }
  const again = await me.task.kill(task.id).catch((e: unknown) => e);
  expect(again).toBeInstanceOf(ValidationError);
  expect((again as Error).message).toContain('have already finished; there is nothing to kill');
});

it('posts a task with cancelOnFailure, which the server keeps and shows', async () => {
  const mine = await t.fx.organization();
  const collab = await t.fx.collaboration([mine]);
  await t.fx.node(mine, collab);
  const me = await researcher(mine);
  const base = {
    collaborationId: collab,
    organizations: [mine],
    image: 'federa/average-python:local',
    input: {},
  };
  const strict = await me.task.create({ ...base, name: 'all or nothing', cancelOnFailure: true });
  expect(strict.cancel_on_failure).toBe(true);
  expect((await me.task.get(strict.id)).cancel_on_failure).toBe(true);
  expect((await me.task.create({ ...base, name: 'plain' })).cancel_on_failure).toBe(false);
});
