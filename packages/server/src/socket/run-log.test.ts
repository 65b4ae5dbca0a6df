/**
 * `run_log` (docs/run-logs.md): a node streams an active run's log in batches over its socket and each batch is
 * answered. Real server on port 0, real socket.io clients, the test database of the dialect under test.
 */
import { describe, expect, it } from 'vitest';
import type { RunLogAck, RunLogUpdatePayload } from '@federa/common';
import { SEALED_LOG_HEADER } from '@federa/common';
import { connected, type SocketApp, type TasksClient as Client, type TestApp } from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';

/** The cap of this test's server: 1 KiB of characters per run. */
const CAP = 1024;
let s: SocketApp;
let t: TestApp;
useSocketApp((started) => ({ s, t } = started), { config: { run_log_max_kb: CAP / 1024 } });

/** A socket in its rooms. */
async function connect(token: string): Promise<Client> {
  const c = s.connect(token);
  await connected(c);
  await s.joined(c);
  return c;
}

const send = (c: Client, result_id: number, offset: number, text: string): Promise<RunLogAck> =>
  c.timeout(5_000).emitWithAck('run_log', { result_id, offset, text });

/** Two organizations with a node each, a researcher, and a task with one run at each. */
async function world(options: { encrypted?: boolean } = {}) {
  const orgs = [await t.fx.organization(), await t.fx.organization()];
  const collab = await t.fx.collaboration(orgs, options);
  const nodes = [await t.fx.node(orgs[0]!, collab), await t.fx.node(orgs[1]!, collab)];
  const task = await t.fx.task(collab, orgs);
  const researcher = await t.fx.user(orgs[0]!, { roles: ['Researcher'] });
  const nodeToken = await nodes[0]!.token();
  const outsider = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
  return {
    nodes,
    task,
    nodeToken,
    researcherToken: await researcher.token(),
    outsiderToken: await outsider.token(),
  };
}

const patch = async (token: string, id: number, body: Record<string, unknown>): Promise<void> => {
  const r = await t.api('PATCH', `/result/${id}`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};

const logOf = async (token: string, id: number): Promise<string | null> => {
  const r = await t.api('GET', `/result/${id}`, { token });
  expect(r.status).toBe(200);
  return (r.body as { log: string | null }).log;
};

describe('run_log', () => {
  it('appends batches of an active run in order, a batch sent again once, and GET /result/{id} shows them', async () => {
    const { task, nodeToken, researcherToken } = await world();
    const id = task.resultIds[0]!;
    const c = await connect(nodeToken);
    // Not active yet: refused, and the node is told to stop.
    expect(await send(c, id, 0, 'early\n')).toMatchObject({ ok: false, offset: 0, stop: true });
    await patch(nodeToken, id, { status: 'active' });
    expect(await send(c, id, 0, 'line 1\n')).toEqual({ ok: true, offset: 7, stop: false });
    expect(await logOf(researcherToken, id)).toBe('line 1\n');
    // The same batch again (its answer lost): taken once.
    expect(await send(c, id, 0, 'line 1\n')).toEqual({ ok: true, offset: 7, stop: false });
    expect(await send(c, id, 7, 'line 2\n')).toEqual({ ok: true, offset: 14, stop: false });
    // A batch from a wrong place: refused with where the next one starts.
    expect(await send(c, id, 30, 'line 9\n')).toMatchObject({ ok: false, offset: 14, stop: false });
    expect(await logOf(researcherToken, id)).toBe('line 1\nline 2\n');
    // The final report replaces the live log; the finished run takes no more.
    await patch(nodeToken, id, { status: 'completed', result: '', log: 'line 1\nline 2\nline 3\n' });
    expect(await send(c, id, 14, 'line 3\n')).toMatchObject({ ok: false, stop: true });
    expect(await logOf(researcherToken, id)).toBe('line 1\nline 2\nline 3\n');
  });

  it('announces each appended batch as run_log_update, without its text, to the researchers of the collaboration', async () => {
    const { task, nodes, nodeToken, researcherToken, outsiderToken } = await world();
    const id = task.resultIds[0]!;
    await patch(nodeToken, id, { status: 'active' });
    const sockets: Client[] = [];
    const listen = async (token: string): Promise<RunLogUpdatePayload[]> => {
      const got: RunLogUpdatePayload[] = [];
      const c = await connect(token);
      sockets.push(c);
      c.on('run_log_update', (p) => got.push(p));
      return got;
    };
    // A researcher (event view organization only) of a member, a node of another member, an outsider.
    const researcher = await listen(researcherToken);
    const otherNode = await listen(await nodes[1]!.token());
    const outsider = await listen(outsiderToken);
    const c = await connect(nodeToken);
    await send(c, id, 0, 'secret line 1\n');
    await send(c, id, 0, 'secret line 1\n'); // sent again: taken before, not announced again
    await send(c, id, 14, 'line 2\n');
    await send(c, id, 99, 'misplaced\n'); // refused: not announced
    // Each answer comes after its announcement was sent: nothing more is on its way to anyone once they have arrived.
    await Promise.all(sockets.map((x) => s.quiet(x)));
    const expected = [
      { result_id: id, task_id: task.id, offset: 14 },
      { result_id: id, task_id: task.id, offset: 21 },
    ];
    expect(researcher).toEqual(expected);
    // The node of another member is not told of this run's log (docs/socket-protocol.md#audiences).
    expect(otherNode).toEqual([]);
    expect(outsider).toEqual([]);
    expect(await logOf(researcherToken, id)).toHaveLength(21);
  });

  it('in an encrypted collaboration stores only sealed pieces, after the header, and refuses plain text', async () => {
    const { task, nodeToken, researcherToken } = await world({ encrypted: true });
    const id = task.resultIds[0]!;
    await patch(nodeToken, id, { status: 'active' });
    const c = await connect(nodeToken);
    const plain = await c
      .timeout(5_000)
      .emitWithAck('run_log', { result_id: id, offset: 0, text: 'secret rows\n' });
    expect(plain).toMatchObject({ ok: false, stop: true });
    expect(plain.error).toMatch(/this collaboration is encrypted: a batch must be sealed pieces/);
    const forged = await c.timeout(5_000).emitWithAck('run_log', {
      result_id: id,
      offset: 0,
      text: 'secret rows\n',
      plain_length: 12,
    });
    expect(forged).toMatchObject({ ok: false, stop: true });
    expect(await logOf(researcherToken, id)).toBeNull();
    // Sealed pieces (the server checks only their form): offsets count the characters of log they hold.
    const piece1 = 'sealed:QUFB$QkJC$Q0ND\n';
    const piece2 = 'sealed:REVE$RUVF$\n';
    const sendSealed = (offset: number, text: string, plain_length: number): Promise<RunLogAck> =>
      c.timeout(5_000).emitWithAck('run_log', { result_id: id, offset, text, plain_length });
    expect(await sendSealed(0, piece1, 12)).toEqual({ ok: true, offset: 12, stop: false });
    expect(await sendSealed(0, piece1, 12)).toEqual({ ok: true, offset: 12, stop: false });
    expect(await sendSealed(12, piece2, 5)).toEqual({ ok: true, offset: 17, stop: false });
    expect(await logOf(researcherToken, id)).toBe(SEALED_LOG_HEADER + piece1 + piece2);
    // At the cap a piece is left out whole, and the server's note is a line of its own.
    const big = `sealed:${'A'.repeat(CAP)}$QkJC$\n`;
    expect(await sendSealed(17, big, 700)).toEqual({ ok: true, offset: 717, stop: true });
    const log = (await logOf(researcherToken, id))!;
    expect(log).toBe(
      `${SEALED_LOG_HEADER}${piece1}${piece2}[federa server] the live log of this run reached ${CAP} characters; the rest is not shown while it runs\n`,
    );
  });

  it('ends a run’s live log at the cap with one note and takes nothing after it', async () => {
    const { task, nodeToken, researcherToken } = await world();
    const id = task.resultIds[0]!;
    await patch(nodeToken, id, { status: 'active' });
    const c = await connect(nodeToken);
    const line = `${'x'.repeat(99)}\n`;
    let offset = 0;
    for (let i = 0; i < 10; i++) {
      const ack = await send(c, id, offset, line);
      expect(ack).toEqual({ ok: true, offset: offset + 100, stop: false });
      offset = ack.offset;
    }
    expect(await send(c, id, offset, line)).toEqual({ ok: true, offset: offset + 100, stop: true });
    expect(await send(c, id, offset + 100, line)).toMatchObject({ ok: true, stop: true });
    const log = (await logOf(researcherToken, id))!;
    expect(log.startsWith(line.repeat(10) + 'x'.repeat(24))).toBe(true);
    expect(log).toContain(`[federa server] the live log of this run reached ${CAP} characters`);
    expect(log.match(/\[federa server\]/g)).toHaveLength(1);
    expect(log.length).toBeLessThan(CAP + 120);
  });

  it('refuses a batch for a run of another node, a malformed batch, and a batch from a user', async () => {
    const { task, nodes, nodeToken, researcherToken } = await world();
    const other = task.resultIds[1]!;
    await patch(await nodes[1]!.token(), other, { status: 'active' });
    const c = await connect(nodeToken);
    expect(await send(c, other, 0, 'not mine\n')).toMatchObject({ ok: false, stop: true });
    expect(await send(c, 987_654, 0, 'nobody\n')).toMatchObject({ ok: false, stop: true });
    const bad = await c
      .timeout(5_000)
      .emitWithAck('run_log', { result_id: other, offset: -1, text: 'x' } as never);
    expect(bad).toMatchObject({ ok: false, error: 'run_log needs {result_id, offset, text}' });
    const user = await connect(researcherToken);
    await expect(
      user.timeout(500).emitWithAck('run_log', { result_id: other, offset: 0, text: 'user\n' }),
    ).rejects.toThrow();
    expect(await logOf(researcherToken, other)).toBeNull();
  });
});
