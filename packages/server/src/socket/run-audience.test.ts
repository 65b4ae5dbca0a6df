/**
 * A run's audience (docs/socket-protocol.md#audiences): every event about a run (`status_update`,
 * `algorithm_status_change`, `run_log_update`, `kill_containers`) reaches the users who may watch the whole
 * collaboration and, among those with only *event view organization*, the users of the run's organization and of
 * the organization that posted the task, and nobody else. Real server on port 0, real socket.io clients.
 */
import { describe, expect, it } from 'vitest';
import { connected, hear, type SocketApp, type TestApp } from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';

type RunEvent = 'status_update' | 'algorithm_status_change' | 'run_log_update' | 'kill_containers';
const RUN_EVENTS: RunEvent[] = [
  'status_update',
  'algorithm_status_change',
  'run_log_update',
  'kill_containers',
];

let s: SocketApp;
let t: TestApp;
useSocketApp((started) => ({ s, t } = started));

/** A socket in its rooms. */
async function connect(token: string) {
  const c = s.connect(token);
  await connected(c);
  await s.joined(c);
  return c;
}

/** A socket in its rooms that records the run events it receives, in order. */
async function listen(token: string) {
  const c = await connect(token);
  const heard = hear(c, RUN_EVENTS);
  return { c, names: (): string[] => heard.map(([event]) => event) };
}

const patch = async (token: string, id: number, body: Record<string, unknown>): Promise<void> => {
  const r = await t.api('PATCH', `/result/${id}`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
};

describe("a run's events", () => {
  it("reach the initiator's and the run's researchers and the collaboration's watchers, not a third member's researcher", async () => {
    // Three members: the initiator (no run of its own), the organization that runs the task, and a bystander.
    const [initiator, runner, bystander] = [
      await t.fx.organization(),
      await t.fx.organization(),
      await t.fx.organization(),
    ];
    const collab = await t.fx.collaboration([initiator!, runner!, bystander!]);
    const node = await t.fx.node(runner!, collab);
    const researcher = await t.fx.user(initiator!, { roles: ['Researcher'] });
    const researcherToken = await researcher.token();
    const task = await t.fx.task(collab, [runner!], { initiatorId: initiator! });
    const toKill = await t.fx.task(collab, [runner!], { initiatorId: initiator! });
    const runId = task.resultIds[0]!;

    // Researchers and Viewers hold only *event view organization*; a Collaboration Admin holds *event view collaboration*.
    const initiators = await listen(researcherToken);
    const runners = await listen(await (await t.fx.user(runner!, { roles: ['Viewer'] })).token());
    const bystanders = await listen(await (await t.fx.user(bystander!, { roles: ['Researcher'] })).token());
    const bystanderViewer = await listen(await (await t.fx.user(bystander!, { roles: ['Viewer'] })).token());
    const watcher = await listen(
      await (await t.fx.user(bystander!, { roles: ['Collaboration Admin'] })).token(),
    );
    const nodeToken = await node.token();
    const n = await connect(nodeToken);

    await patch(nodeToken, runId, { status: 'active' });
    n.emit('algorithm_status_change', {
      node_id: node.id,
      status: 'active',
      result_id: runId,
      task_id: task.id,
      collaboration_id: collab,
      organization_id: runner!,
      parent_id: null,
    });
    expect(
      await n.timeout(5_000).emitWithAck('run_log', { result_id: runId, offset: 0, text: 'line 1\n' }),
    ).toMatchObject({ ok: true });
    await patch(nodeToken, runId, { status: 'completed', result: '', log: 'line 1\n' });
    const kill = await t.api('POST', '/kill/task', { token: researcherToken, body: { id: toKill.id } });
    expect(kill.status, JSON.stringify(kill.body)).toBe(200);

    // status_update (active), the relay, the live batch, the final report (status and log), the kill.
    const all: RunEvent[] = [
      'status_update',
      'algorithm_status_change',
      'run_log_update',
      'status_update',
      'run_log_update',
      'kill_containers',
    ];
    const everyone = [initiators, runners, bystanders, bystanderViewer, watcher];
    // The relay and the live batch are handled apart from the requests: wait for them, then for nothing more.
    await expect.poll(() => initiators.names().length).toBe(all.length);
    await Promise.all(everyone.map(({ c }) => s.quiet(c)));
    expect(initiators.names().sort()).toEqual([...all].sort());
    expect(runners.names().sort()).toEqual([...all].sort());
    expect(watcher.names().sort()).toEqual([...all].sort());
    expect(bystanders.names()).toEqual([]);
    expect(bystanderViewer.names()).toEqual([]);
  });
});
