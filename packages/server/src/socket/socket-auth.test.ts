/**
 * Socket authentication (docs/socket-protocol.md#connecting): a socket without a valid access token is accepted,
 * told `expired_token`, and put in no room. Real server on port 0, real socket.io clients.
 */
import { describe, expect, it } from 'vitest';
import {
  connected,
  hear,
  nodeView,
  socketNetwork,
  until,
  type SocketApp,
  type TasksClient,
  type TestApp,
} from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';
import { TokenService } from '../auth/tokens.js';
import { openSession } from '../auth/sessions.js';

let s: SocketApp;
let t: TestApp;
useSocketApp((started) => ({ s, t } = started));

const connect = (token: string | null) => s.connect(token, { transports: ['polling', 'websocket'] });

describe('authentication', () => {
  const expiredToken = async (kind: 'node' | 'user', id: number): Promise<string> =>
    new TokenService('test-secret-key-that-is-long-enough', {
      accessSeconds: -60,
      refreshSeconds: 60,
      resetSeconds: 60,
    }).access(kind, id, { sid: 'no-session', endsAt: Date.now() + 3_600_000 });

  /** Must be called before the client's first events can arrive (same tick as connect). */
  async function expiredTokenEvents(c: TasksClient): Promise<unknown[][]> {
    const events: unknown[][] = [];
    c.on('expired_token', (...args: unknown[]) => events.push(args));
    await connected(c);
    await until(
      'two expired_token events',
      () => events.length,
      (n) => n >= 2,
    );
    return events;
  }

  it('accepts a socket with an expired token but tells it expired_token, once with "" and once without argument', async () => {
    const { nodes } = await socketNetwork(t);
    const c = connect(await expiredToken('node', nodes[0]!.id));
    expect(await expiredTokenEvents(c)).toEqual([[''], []]);
    expect(c.connected).toBe(true);
    await s.presence.idle();
    expect((await nodeView(t, nodes[0]!.id)).status).not.toBe('online');
  });

  it('sends expired_token for a missing, forged or refresh token, and such sockets get no room events', async () => {
    const { collab, nodes } = await socketNetwork(t);
    const forged = new TokenService('another-secret-that-is-long-enough', {
      accessSeconds: 60,
      refreshSeconds: 60,
      resetSeconds: 60,
    });
    const tokens = [
      null,
      await forged.access('node', nodes[0]!.id, { sid: 'no-session', endsAt: Date.now() + 3_600_000 }),
      (await openSession(t.ctx, 'node', nodes[0]!.id)).refresh_token,
    ];
    const bad = tokens.map((token) => connect(token));
    const events = bad.map(expiredTokenEvents);
    for (const e of events) expect(await e).toEqual([[''], []]);
    const got = bad.map((c) => hear(c, ['new_task']));
    t.ctx.events.emit(`collaboration_${collab}`, 'new_task', 1);
    t.ctx.events.emit('all_nodes', 'new_task', 1);
    await Promise.all(bad.map((c) => s.quiet(c)));
    expect(got).toEqual([[], [], []]);
  });
});
