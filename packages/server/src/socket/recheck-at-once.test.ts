import { describe, expect, it } from 'vitest';
import type { SocketApp, TasksClient, TestApp } from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';

/**
 * Open sockets follow changes made through the API at once, not only at the periodic re-check (docs/security.md,
 * "Open sockets"): the periodic re-check is set to an hour here, so every room change seen below comes from the
 * route that made the change. A real server on port 0 and real socket.io clients, on SQLite and PostgreSQL.
 */

const TASK_CREATED = { task_id: 1, run_id: 1, collaboration_id: 1, init_org_id: 1 };
let s: SocketApp;
let t: TestApp;
useSocketApp((started) => ({ s, t } = started), { config: { socket_recheck_seconds: 3600 } });

const connect = (token: string): TasksClient => s.connect(token);
const inRoom = (room: string, count: number) => s.inRoom(room, count);

/** Whether `c` receives `task_created` sent to `room`. */
const receivesTaskCreated = (c: TasksClient, room: string) =>
  s.hears(c, 'task_created', () => t.ctx.events.emit(room, 'task_created', TASK_CREATED));

/** A user of an organization in two collaborations, watching task events; their socket is in both rooms. */
async function watcher() {
  const org = await t.fx.organization();
  const other = await t.fx.organization();
  const collab = await t.fx.collaboration([org, other]);
  const role = await t.fx.role(['event.v_col'], org);
  const u = await t.fx.user(org, { roleIds: [role] });
  const c = connect(await u.token());
  const room = `collaboration_${collab}`;
  await inRoom(room, 1);
  return { org, other, collab, role, u, c, room };
}

describe('rooms change when the change is made, not at the next periodic re-check', () => {
  it('a user whose role was removed (PATCH /user) leaves the room at once', async () => {
    const { u, c, room } = await watcher();
    expect(await receivesTaskCreated(c, room)).toBe(true);
    const patch = await t.api('PATCH', `/user/${u.id}`, { token: t.rootToken, body: { roles: [] } });
    expect(patch.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room)).toBe(false);
    expect(c.connected).toBe(true);
  });

  it('removing the event rule from a role (DELETE /role/{id}/rule/{rule}) takes its users out at once', async () => {
    const { role, c, room } = await watcher();
    const r = await t.api('DELETE', `/role/${role}/rule/${await t.fx.ruleId('event.v_col')}`, {
      token: t.rootToken,
    });
    expect(r.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room)).toBe(false);
  });

  it('an organization removed from a collaboration (DELETE /collaboration/{id}/organization): its users leave the room', async () => {
    const { org, collab, c, room } = await watcher();
    const r = await t.api('DELETE', `/collaboration/${collab}/organization`, {
      token: t.rootToken,
      body: { id: org },
    });
    expect(r.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room)).toBe(false);
  });

  it('a member list rewritten without the organization (PATCH /collaboration/{id}): its users leave the room', async () => {
    const { other, collab, c, room } = await watcher();
    const r = await t.api('PATCH', `/collaboration/${collab}`, {
      token: t.rootToken,
      body: { organization_ids: [other] },
    });
    expect(r.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room)).toBe(false);
  });
});
