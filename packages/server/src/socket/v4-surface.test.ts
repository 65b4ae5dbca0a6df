/**
 * vantage6 4.x's nodes and clients on the socket (docs/socket-protocol.md#vantage6-4x-clients-and-nodes): a socket
 * whose session began with a login at `/v4/api` is in the same rooms as a 3.x socket of the same identity, and
 * hears the events in 4.14's form (`new_task` as `{id, parent_id}`, `run_id` a run, `job_id` the job), while a 3.x
 * socket beside it hears them as before. A 4.x node's `algorithm_status_change` names its run `run_id`. Real server,
 * real socket.io clients, on SQLite and (FEDERA_TEST_DB=postgres) PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import {
  connected,
  hear,
  received,
  researcherPostsTask,
  socketNetwork,
  until,
  type SocketApp,
  type TasksClient,
  type TestApp,
} from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';

let s: SocketApp;
let t: TestApp;
useSocketApp((started) => ({ s, t } = started));

/** A node's access token from a login at `prefix` (`/api` or `/v4/api`). */
async function nodeLogin(prefix: string, apiKey: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `${prefix}/token/node`,
    payload: { api_key: apiKey },
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ access_token: string }>().access_token;
}

// The 4.x forms are not the 3.x event types the harness declares: listened to untyped.
const untypedReceived = (c: TasksClient, event: string) =>
  received(c, event as 'new_task') as unknown as Promise<unknown[]>;

async function twoNodes() {
  const net = await socketNetwork(t);
  const [a, b] = net.nodes as [(typeof net.nodes)[0], (typeof net.nodes)[0]];
  const four = s.connect(await nodeLogin('/v4/api', a.apiKey));
  const three = s.connect(await nodeLogin('/api', b.apiKey));
  await Promise.all([connected(four), connected(three)]);
  await Promise.all([s.joined(four), s.joined(three)]);
  return { ...net, four, three };
}

describe('4.x sockets', () => {
  it('hear new_task as {id, parent_id} where a 3.x node hears the id; Federa-only events stay 3.x only', async () => {
    const { orgs, collab, four, three } = await twoNodes();
    const fourHeard = hear(four, ['task_created', 'run_log_update', 'container_failed']);
    const fourTask = untypedReceived(four, 'new_task');
    const threeTask = received(three, 'new_task');
    const threeCreated = received(three, 'task_created');
    const r = await researcherPostsTask(t, collab, orgs, 'socket surfaces');
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(await fourTask).toEqual([{ id: r.body.id, parent_id: null }]);
    expect(await threeTask).toEqual([r.body.id]);
    expect((await threeCreated)[0].task_id).toBe(r.body.id);
    await s.quiet(four);
    expect(fourHeard).toEqual([]);
  });

  it("relays a 4.x node's failure report by run_id, in each surface's form", async () => {
    const { orgs, collab, nodes, four, three } = await twoNodes();
    const task = await t.fx.task(collab, orgs);
    const runA = task.resultIds[0]!;
    const fourHears = untypedReceived(four, 'algorithm_status_change');
    const threeHears = received(three, 'algorithm_status_change');
    four.emit('algorithm_status_change', {
      run_id: runA,
      status: 'crashed',
      task_id: task.id,
      collaboration_id: collab,
      node_id: nodes[0]!.id,
      organization_id: orgs[0]!,
      parent_id: null,
    } as never);
    expect(await fourHears).toEqual([
      {
        status: 'crashed',
        run_id: runA,
        task_id: task.id,
        job_id: task.runId,
        collaboration_id: collab,
        node_id: nodes[0]!.id,
        organization_id: orgs[0]!,
        parent_id: null,
      },
    ]);
    expect((await threeHears)[0]).toMatchObject({ status: 'crashed', result_id: runA, run_id: task.runId });
  });

  it('hear kill_containers and status_update with run_id naming the run', async () => {
    const { orgs, collab, four, three } = await twoNodes();
    const task = await t.fx.task(collab, orgs);
    const fourKill = untypedReceived(four, 'kill_containers');
    const threeKill = received(three, 'kill_containers');
    const killed = await t.api('POST', '/kill/task', { token: t.rootToken, body: { id: task.id } });
    expect(killed.status, JSON.stringify(killed.body)).toBe(200);
    const [fourPayload] = (await fourKill) as [{ kill_list: unknown[]; collaboration_id: number }];
    expect(fourPayload.collaboration_id).toBe(collab);
    expect(fourPayload.kill_list).toContainEqual({
      task_id: task.id,
      run_id: task.resultIds[0],
      organization_id: orgs[0],
    });
    const [threePayload] = await threeKill;
    expect(threePayload).toMatchObject({ collaboration_id: collab });
    expect((threePayload as { kill_list: unknown[] }).kill_list).toContainEqual({
      task_id: task.id,
      result_id: task.resultIds[0],
      organization_id: orgs[0],
    });

    const fourStatus = untypedReceived(four, 'status_update');
    const threeStatus = received(three, 'status_update');
    t.ctx.events.emit(`collaboration_${collab}`, 'status_update', { result_id: task.resultIds[1]! });
    expect(await fourStatus).toEqual([{ run_id: task.resultIds[1] }]);
    expect(await threeStatus).toEqual([{ result_id: task.resultIds[1] }]);
  });

  it("takes a 4.x node's algorithm_log into its run's live log in order, and never into another node's run", async () => {
    const { orgs, collab, nodes, four } = await twoNodes();
    const task = await t.fx.task(collab, orgs);
    const [mine, theirs] = task.resultIds as [number, number];
    const active = async (id: number, token: string) => {
      const r = await t.api('PATCH', `/result/${id}`, { token, body: { status: 'active' } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    };
    await active(mine, await nodes[0]!.token());
    await active(theirs, await nodes[1]!.token());
    const researcher = await (await t.fx.user(orgs[0]!, { roles: ['Researcher'] })).token();
    const logOf = async (id: number) => {
      const r = await t.api('GET', `/result/${id}`, { token: researcher });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body as { log: string | null }).log;
    };
    const piece = (run_id: number, log: string) =>
      four.emit('algorithm_log', { collaboration_id: collab, run_id, task_id: task.id, log });
    piece(mine, 'line 1\n');
    piece(theirs, 'not mine\n');
    piece(mine, 'line 2\n');
    piece(mine, 'line 3\n');
    // The pieces of one socket are taken in the order they came: the last one seen means all were.
    await until(
      'the third line',
      () => logOf(mine),
      (log) => log?.includes('line 3') ?? false,
    );
    expect(await logOf(mine)).toBe('line 1\nline 2\nline 3\n');
    expect(await logOf(theirs)).toBeNull();
  });
});
