import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  connected,
  disconnected,
  until,
  type SocketApp,
  type TasksClient,
  type TestApp,
} from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';
import { nowStored } from '../http/datetime.js';
import { presenceRoom } from './rooms.js';

/**
 * Open sockets are checked again (docs/security.md, "Sessions, tokens and login"): sockets of ended sessions and
 * deleted identities are closed, a user's rooms follow their roles. A real server on port 0, real socket.io
 * clients, on SQLite and (FEDERA_TEST_DB=postgres) PostgreSQL.
 */

const TASK_CREATED = { task_id: 1, run_id: 1, collaboration_id: 1, init_org_id: 1 };
let s: SocketApp;
let t: TestApp;
useSocketApp((started) => ({ s, t } = started), { config: { socket_recheck_seconds: 1 } });
afterEach(() => {
  vi.restoreAllMocks();
});

const connect = (token: string | null): TasksClient => s.connect(token);
/** Waits until the server has put the identity's socket in its rooms (it joins them after the handshake). */
const inRoom = (room: string, count: number) => s.inRoom(room, count);

/** Whether `c` receives `task_created` sent to `room`. */
const receivesTaskCreated = (c: TasksClient, room: string) =>
  s.hears(c, 'task_created', () => t.ctx.events.emit(room, 'task_created', TASK_CREATED));

async function watcher() {
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const role = await t.fx.role(['event.v_col'], org);
  const u = await t.fx.user(org, { roleIds: [role] });
  const c = connect(await u.token());
  await connected(c);
  await inRoom(`collaboration_${collab}`, 1);
  return { org, collab, role, u, c, room: `collaboration_${collab}` };
}

describe('sockets of ended sessions and deleted identities are closed', () => {
  it('a password change disconnects the sockets of the user, telling them expired_token first', async () => {
    const { u, c } = await watcher();
    const told = new Promise<void>((resolve) => c.once('expired_token', () => resolve()));
    const gone = disconnected(c);
    const r = await t.api('PATCH', '/password/change', {
      token: await u.token(),
      body: { current_password: u.password, new_password: 'Other-Pass-31!' },
    });
    expect(r.status).toBe(200);
    await told;
    expect(await gone).toBe('io server disconnect');
  });

  it('deleting a user disconnects their sockets', async () => {
    const { u, c } = await watcher();
    const gone = disconnected(c);
    expect((await t.api('DELETE', `/user/${u.id}`, { token: t.rootToken })).status).toBe(200);
    expect(await gone).toBe('io server disconnect');
  });

  it("resetting a node's API key, or deleting the node, disconnects its socket", async () => {
    const org = await t.fx.organization();
    for (const revoke of ['reset', 'delete'] as const) {
      // A collaboration each: an organization has one node in a collaboration.
      const node = await t.fx.node(org, await t.fx.collaboration([org]));
      const c = connect(await node.token());
      await connected(c);
      await inRoom(presenceRoom({ kind: 'node', id: node.id }), 1);
      const gone = disconnected(c);
      const r =
        revoke === 'reset'
          ? await t.api('POST', '/recover/node', { token: t.rootToken, body: { id: node.id } })
          : await t.api('DELETE', `/node/${node.id}`, { token: t.rootToken });
      expect(r.status).toBe(200);
      expect(await gone).toBe('io server disconnect');
    }
  });

  it('a session ended elsewhere (another instance, the database) is caught by the periodic re-check', async () => {
    const { u, c } = await watcher();
    const gone = disconnected(c);
    await t.ctx.dbh.db
      .updateTable('session')
      .set({ ended_at: nowStored(), end_reason: 'password_changed' })
      .where('kind', '=', 'user')
      .where('subject_id', '=', u.id)
      .execute();
    expect(await gone).toBe('io server disconnect');
  });
});

describe("a user's rooms follow their roles", () => {
  it('a user whose role was removed no longer receives task_created; given it back, receives it again', async () => {
    const { role, u, c, room } = await watcher();
    expect(await receivesTaskCreated(c, room)).toBe(true);
    const patch = await t.api('PATCH', `/user/${u.id}`, { token: t.rootToken, body: { roles: [] } });
    expect(patch.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room)).toBe(false);
    expect(c.connected).toBe(true);
    await t.api('PATCH', `/user/${u.id}`, { token: t.rootToken, body: { roles: [role] } });
    await inRoom(room, 1);
    expect(await receivesTaskCreated(c, room)).toBe(true);
  });

  it('removing the event rule from a role moves the sockets of its users out of the room', async () => {
    const { role, c, room } = await watcher();
    const ruleId = await t.fx.ruleId('event.v_col');
    const r = await t.api('DELETE', `/role/${role}/rule/${ruleId}`, { token: t.rootToken });
    expect(r.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room)).toBe(false);
  });
});

describe('unauthenticated sockets', () => {
  it('their message events are not written to the log', async () => {
    const info = vi.spyOn(t.ctx.log, 'info');
    const c = connect(null);
    await connected(c);
    c.emit('message', 'x'.repeat(10_000));
    // A second, identified socket's message shows that messages are handled (and when).
    const { u } = await watcher();
    const known = connect(await u.token());
    await connected(known);
    await inRoom(presenceRoom({ kind: 'user', id: u.id }), 2);
    known.emit('message', 'hello');
    await until(
      'the identified message in the log',
      async () => info.mock.calls.filter((call) => JSON.stringify(call[0]).includes('socket.message')).length,
      (n) => n >= 1,
    );
    const logged = info.mock.calls.filter((call) => JSON.stringify(call[0]).includes('socket.message'));
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged[0]?.[0])).toContain('hello');
  });
});
