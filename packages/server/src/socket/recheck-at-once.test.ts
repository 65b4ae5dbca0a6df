import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { io as connectClient, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@federa/common';
import { startTestApp, type TestApp } from '@federa/testing';
import { SocketServer } from './socket-server.js';
import { presenceRoom } from './rooms.js';

/**
 * Open sockets follow changes made through the API at once, not only at the periodic re-check (docs/security.md,
 * "Open sockets"): the periodic re-check is set to an hour here, so every room change seen below comes from the
 * route that made the change. A real server on port 0 and real socket.io clients, on SQLite and PostgreSQL.
 */
type Client = Socket<ServerToClientEvents, ClientToServerEvents>;

let t: TestApp;
let sockets: SocketServer;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  sockets = new SocketServer();
  t = await startTestApp({ events: sockets.events, config: { socket_recheck_seconds: 3600 } });
  sockets.bind(t.ctx);
  sockets.attach(t.app.server);
  url = `http://127.0.0.1:${await t.listen()}`;
});
afterEach(() => {
  for (const c of clients.splice(0)) c.disconnect();
});
afterAll(async () => {
  await sockets.close();
  await t.close();
});

function connect(token: string): Client {
  const c: Client = connectClient(`${url}/tasks`, {
    forceNew: true,
    reconnection: false,
    transports: ['websocket'],
    extraHeaders: { Authorization: `Bearer ${token}` },
  });
  clients.push(c);
  return c;
}

async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + 5000;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const inRoom = (room: string, count: number) =>
  until(
    `${count} socket(s) in ${room}`,
    async () => (await sockets.nsp.in(room).fetchSockets()).length,
    (n) => n === count,
  );

/** Whether `c` receives `task_created` sent to `room` (a marker sent to the socket afterwards arrives after it). */
async function receivesTaskCreated(c: Client, room: string, userId: number): Promise<boolean> {
  const got: unknown[] = [];
  c.on('task_created', (p) => got.push(p));
  const marker = new Promise<void>((resolve) =>
    c.on('message', (text) => {
      if (text === 'marker') resolve();
    }),
  );
  t.ctx.events.emit(room, 'task_created', { task_id: 1, run_id: 1, collaboration_id: 1, init_org_id: 1 });
  t.ctx.events.emit(presenceRoom({ kind: 'user', id: userId }), 'message', 'marker');
  await marker;
  c.off('task_created');
  c.off('message');
  return got.length > 0;
}

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
    expect(await receivesTaskCreated(c, room, u.id)).toBe(true);
    const patch = await t.api('PATCH', `/user/${u.id}`, { token: t.rootToken, body: { roles: [] } });
    expect(patch.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room, u.id)).toBe(false);
    expect(c.connected).toBe(true);
  });

  it('removing the event rule from a role (DELETE /role/{id}/rule/{rule}) takes its users out at once', async () => {
    const { role, u, c, room } = await watcher();
    const r = await t.api('DELETE', `/role/${role}/rule/${await t.fx.ruleId('event.v_col')}`, {
      token: t.rootToken,
    });
    expect(r.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room, u.id)).toBe(false);
  });

  it('an organization removed from a collaboration (DELETE /collaboration/{id}/organization): its users leave the room', async () => {
    const { org, collab, u, c, room } = await watcher();
    const r = await t.api('DELETE', `/collaboration/${collab}/organization`, {
      token: t.rootToken,
      body: { id: org },
    });
    expect(r.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room, u.id)).toBe(false);
  });

  it('a member list rewritten without the organization (PATCH /collaboration/{id}): its users leave the room', async () => {
    const { other, collab, u, c, room } = await watcher();
    const r = await t.api('PATCH', `/collaboration/${collab}`, {
      token: t.rootToken,
      body: { organization_ids: [other] },
    });
    expect(r.status).toBe(200);
    await inRoom(room, 0);
    expect(await receivesTaskCreated(c, room, u.id)).toBe(false);
  });
});
