/**
 * The node and the server's sessions (docs/security.md, "Sessions, tokens and login"), against the real server:
 * when the node's session ends without the node being revoked (its absolute lifetime reached), the server closes
 * its socket with `expired_token`; the node's refresh is refused, it logs in again with its API key, opens a new
 * session and is back online. No Docker work is needed: no task runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFederation,
  type E2eServer,
  formatStored,
  presenceRoom,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const tag = `se${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
let started: StartedNode | undefined;

beforeAll(async () => {
  server = await startE2eServer();
}, 60_000);

afterAll(async () => {
  await started?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-node`);
}, 60_000);

describe('node sessions', () => {
  it('after its session reached the maximum lifetime, the node logs in again and is back online', async () => {
    const fed = await createFederation(server, false, tag, ['age\n1\n', 'age\n2\n']);
    const org = fed.orgs[0]!;
    started = await startE2eNode(server, org, `${tag}-node`, false);
    const db = server.ctx.dbh.db;
    const sessions = () =>
      db
        .selectFrom('session')
        .select(['id', 'expires_at'])
        .where('kind', '=', 'node')
        .where('subject_id', '=', org.nodeId)
        .execute();
    /** The sessions of the node's open sockets on the server. */
    const socketSessions = async () =>
      (await server.sockets.nsp.in(presenceRoom({ kind: 'node', id: org.nodeId })).fetchSockets()).map(
        (s) => s.data.sid,
      );
    const before = await until('the node connected', socketSessions, (sids) => sids.length === 1);
    const [first] = await sessions();
    expect(before).toEqual([first!.id]);
    // The session's end reached (moved into the past instead of waiting 30 days), then the re-check of its socket.
    await db
      .updateTable('session')
      .set({ expires_at: formatStored(new Date(Date.now() - 1000)) })
      .where('id', '=', first!.id)
      .execute();
    server.ctx.events.identityChanged?.({ what: 'ended', kind: 'node', id: org.nodeId });
    const after = await until('a second session of the node', sessions, (rows) => rows.length === 2, 30_000);
    const second = after.find((r) => r.id !== first!.id)!;
    expect(Date.parse(`${second.expires_at}Z`)).toBeGreaterThan(Date.now());
    // Its socket is back, opened with a token of the new session.
    expect(
      await until(
        'the node reconnected',
        socketSessions,
        (sids) => sids.length === 1 && sids[0] === second.id,
        30_000,
      ),
    ).toEqual([second.id]);
    expect((await server.api('GET', `/node/${org.nodeId}`)).body.status).toBe('online');
  }, 90_000);
});
