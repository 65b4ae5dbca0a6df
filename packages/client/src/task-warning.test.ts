/**
 * A task posted to organizations whose nodes are offline still queues, and the server says so in a `warning`.
 * The TypeScript SDK shows that warning the way a script's author notices it (console.warn, or the `warn` option),
 * and keeps it on the created task. Real server on a free port; the nodes are registered but never connect.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';

import { ROOT_PASSWORD, startTestApp, type TestApp } from '@federa/testing';
import { UserClient } from './user-client.js';

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp();
  port = await t.listen();
});

afterAll(async () => {
  await t?.close();
});

async function client(options: { warn?: (message: string) => void } = {}): Promise<UserClient> {
  const c = new UserClient({ host: 'http://127.0.0.1', port, apiPath: '/api', ...options });
  await c.authenticate('root', ROOT_PASSWORD);
  return c;
}

/** Two organizations in an unencrypted collaboration with root's, each with a registered node that is not running. */
async function world(c: UserClient) {
  const tag = Math.random().toString(36).slice(2, 8);
  const a = await c.organization.create({ name: `Warn A ${tag}` });
  const b = await c.organization.create({ name: `Warn B ${tag}` });
  const mine = (await c.user.me()).organization.id;
  const collab = await c.collaboration.create({ name: `Warn ${tag}`, organizationIds: [mine, a.id, b.id] });
  const nodeA = await c.node.create({ collaborationId: collab.id, organizationId: a.id });
  const nodeB = await c.node.create({ collaborationId: collab.id, organizationId: b.id });
  return { a, b, collab, nodeA, nodeB };
}

const newTask = (collaborationId: number, organizations: number[]) => ({
  collaborationId,
  organizations,
  name: 'warned',
  image: 'federa/average-ts:local',
  input: { method: 'partial_average', args: ['age'], output_format: 'json' },
});

it('prints the offline warning with console.warn by default and returns it on the task', async () => {
  const c = await client();
  const w = await world(c);
  const printed = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    const task = await c.task.create(newTask(w.collab.id, [w.a.id, w.b.id]));
    const expected = `Offline node(s): "${w.nodeA.name}" of ${w.a.name} (organization ${w.a.id}), "${w.nodeB.name}" of ${w.b.name} (organization ${w.b.id}). The task waits and runs when they connect. Ask their node admins to start them (vnode start).`;
    expect(task.warning).toBe(expected);
    expect(printed.mock.calls).toEqual([[`[federa] warning: ${expected}`]]);
    expect((await c.task.get(task.id)).id).toBe(task.id); // it queued
  } finally {
    printed.mockRestore();
  }
});

it('hands the warning to the warn option instead, and says nothing when every receiving node is online', async () => {
  const warnings: string[] = [];
  const c = await client({ warn: (m) => warnings.push(m) });
  const w = await world(c);
  const printed = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    await c.task.create(newTask(w.collab.id, [w.b.id]));
    expect(warnings).toEqual([
      `Offline node(s): "${w.nodeB.name}" of ${w.b.name} (organization ${w.b.id}). The task waits and runs when they connect. Ask their node admins to start them (vnode start).`,
    ]);
    await t.ctx.dbh.db.updateTable('node').set({ status: 'online' }).where('id', '=', w.nodeA.id).execute();
    const quiet = await c.task.create(newTask(w.collab.id, [w.a.id]));
    expect(quiet.warning).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(printed).not.toHaveBeenCalled();
  } finally {
    printed.mockRestore();
  }
});
