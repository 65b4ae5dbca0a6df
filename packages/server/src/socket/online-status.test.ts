/**
 * Online status over real sockets (docs/socket-protocol.md): a node or user is online while a socket of theirs is
 * connected, and the users watching a collaboration hear its nodes come and go. Real server on port 0, real
 * socket.io clients, on SQLite and (FEDERA_TEST_DB=postgres) PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import type { NodePresencePayload } from '@federa/common';
import {
  connected,
  hear,
  nodeView,
  received,
  socketNetwork,
  until,
  userStatus,
  type ConnectOptions,
  type SocketApp,
  type TestApp,
} from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';

let s: SocketApp;
let t: TestApp;
useSocketApp((started) => ({ s, t } = started));

/** Authenticated like a vantage6 node (the Authorization header), long-polling first and then upgrading. */
const connect = (token: string | null, o: ConnectOptions = {}) =>
  s.connect(token, { transports: ['polling', 'websocket'], ...o });

describe('online status', () => {
  it('shows a node online while its socket is connected and offline after it disconnects', async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    expect((await nodeView(t, node.id)).status).not.toBe('online');
    const c = connect(await node.token());
    await connected(c);
    await s.settled(node.id, 1);
    const online = await nodeView(t, node.id);
    expect(online.status).toBe('online');
    expect(online.last_seen).not.toBeNull();
    c.disconnect();
    await s.settled(node.id, 0);
    expect((await nodeView(t, node.id)).status).toBe('offline');
  });

  it('keeps a node online when it reconnects at once (new socket before or after the old one closes)', async () => {
    const { nodes } = await socketNetwork(t);
    const node = nodes[0]!;
    const token = await node.token();
    let current = connect(token);
    await connected(current);
    await s.settled(node.id, 1);
    for (let round = 0; round < 6; round++) {
      const old = current;
      if (round % 2 === 0) {
        old.disconnect();
        current = connect(token);
      } else {
        current = connect(token);
        await connected(current);
        old.disconnect();
      }
      await connected(current);
      await s.settled(node.id, 1);
      expect((await nodeView(t, node.id)).status, `round ${round}`).toBe('online');
    }
    current.disconnect();
    await s.settled(node.id, 0);
    expect((await nodeView(t, node.id)).status).toBe('offline');
  });

  it('announces a node joining and leaving to the users watching its collaboration, not to the other nodes', async () => {
    const { orgs, nodes } = await socketNetwork(t);
    const viewer = await t.fx.user(orgs[1]!, { rules: ['event.v_col'] });
    const watcher = connect(await viewer.token());
    const otherNode = connect(await nodes[1]!.token());
    await Promise.all([connected(watcher), connected(otherNode)]);
    await s.settled(nodes[1]!.id, 1);
    await until(
      'viewer online',
      () => userStatus(t, viewer.id),
      (v) => v === 'online',
    );
    const nodeHeard = hear(otherNode, ['node-online', 'node-offline', 'message']);
    const about = (p: NodePresencePayload): boolean => p.id === nodes[0]!.id;
    const online = received(watcher, 'node-online', about);
    const joined = received(watcher, 'message', (text) => text.includes('joined room collaboration_'));
    const c = connect(await nodes[0]!.token());
    const expected: NodePresencePayload = {
      id: nodes[0]!.id,
      name: expect.any(String) as unknown as string,
      org_id: orgs[0]!,
    };
    expect((await online)[0]).toEqual(expected);
    expect((await joined)[0]).toMatch(/ joined room collaboration_\d+$/);
    const offline = received(watcher, 'node-offline', about);
    const left = received(watcher, 'message', (text) => text.includes('left room collaboration_'));
    await connected(c);
    await s.settled(nodes[0]!.id, 1);
    c.disconnect();
    expect((await offline)[0]).toEqual(expected);
    await left;
    // The watcher has heard all of it; a node of the same collaboration heard none of it.
    await s.quiet(otherNode);
    expect(nodeHeard).toEqual([]);
  });

  it('marks a user online while connected; the auth payload token works for browsers', async () => {
    const org = await t.fx.organization();
    const user = await t.fx.user(org);
    const c = connect(await user.token(), { auth: true, transports: ['websocket'] });
    await connected(c);
    await until(
      'user online',
      () => userStatus(t, user.id),
      (v) => v === 'online',
    );
    c.disconnect();
    await until(
      'user offline',
      () => userStatus(t, user.id),
      (v) => v === 'offline',
    );
  });
});
