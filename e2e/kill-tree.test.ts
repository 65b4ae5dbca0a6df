/**
 * Kill, end to end (docs/run-statuses.md#kill): a real server, three real nodes in-process, algorithms in Docker. A
 * three-level task tree over three nodes stops at once; a node that was offline during a kill stops the run at its
 * reconnection, and a killed run never starts after a restart. Needs Docker and the images of scripts/build-images.sh
 * and scripts/build-algorithms.sh (`federa/average-python:local` with its `chain` method; built here when outdated).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import {
  createFederation,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  until,
  type E2eServer,
  type Federation,
  type StartedNode,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '..');
const IMAGE = 'federa/average-python:local';
const tag = `kill${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

let server: E2eServer;
let fed: Federation;
const nodes: StartedNode[] = [];

interface ResultView {
  id: number;
  status: string;
  started_at: string | null;
  finished_at: string | null;
  task: { id: number } | number;
}
interface TaskView {
  id: number;
  run_id: number;
  complete: boolean;
  status: string;
}

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  server = await startE2eServer();
  fed = await createFederation(server, false, tag, ['age\n1\n', 'age\n2\n', 'age\n3\n']);
  nodes.push(
    ...(await Promise.all(fed.orgs.map((org, i) => startE2eNode(server, org, `${tag}-${i}`, false)))),
  );
}, 180_000);

afterAll(async () => {
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of nodes) removeNodeObjects(n.name);
}, 60_000);

/** Posts `chain` at `org`: a tree one level per organization of `below`, the last level sleeping. */
async function postChain(org: number, below: number[], seconds = 600): Promise<TaskView> {
  const input = `json.${JSON.stringify({ method: 'chain', kwargs: { organizations: below, seconds }, master: true })}`;
  const posted = await server.api<TaskView>('POST', '/task', {
    name: 'kill test',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    database: 'default',
    organizations: [{ id: org, input: encodeBase64(Buffer.from(input)) }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  return posted.body;
}

/** The runs of every task of a run id (the whole tree), oldest first. */
async function treeRuns(runId: number): Promise<ResultView[]> {
  const tasks = (await server.api<TaskView[]>('GET', `/task?run_id=${runId}&per_page=100`)).body;
  const runs: ResultView[] = [];
  for (const t of tasks) runs.push(...(await server.api<ResultView[]>('GET', `/task/${t.id}/result`)).body);
  return runs.sort((a, b) => a.id - b.id);
}

/** Ids of the algorithm containers running for a node. */
function runningContainers(node: StartedNode): string[] {
  return execFileSync(
    'docker',
    ['ps', '-q', '--filter', 'label=vantage6-type=algorithm', '--filter', `label=node=${node.name}`],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter(Boolean);
}

const containerExists = (resultId: number, node: StartedNode): boolean =>
  execFileSync(
    'docker',
    ['ps', '-aq', '--filter', `label=result_id=${resultId}`, '--filter', `label=node=${node.name}`],
    { encoding: 'utf8' },
  ).trim() !== '';

describe('kill, end to end', () => {
  it('stops a three-level task tree over three nodes within 5 s, every run killed by user', async () => {
    const [a, b, c] = fed.orgs;
    const root = await postChain(a!.id, [b!.id, c!.id]);
    // master at A → sub-task at B → sub-sub-task at C, all three containers running.
    await until(
      'three levels active',
      () => treeRuns(root.run_id),
      (runs) => runs.length === 3 && runs.every((r) => r.status === 'active'),
      120_000,
      250,
    );
    expect(nodes.map((n) => runningContainers(n).length)).toEqual([1, 1, 1]);

    const started = Date.now();
    const kill = await server.api('POST', '/kill/task', { id: root.id });
    expect(kill.status, JSON.stringify(kill.body)).toBe(200);
    await until(
      'every container of the tree stopped',
      async () => nodes.map((n) => runningContainers(n).length),
      (counts) => counts.every((n) => n === 0),
      20_000,
      50,
    );
    const stoppedMs = Date.now() - started;
    console.log(`kill of a three-level tree over three nodes: every container stopped in ${stoppedMs} ms`);
    expect(stoppedMs).toBeLessThan(5_000);

    const runs = await treeRuns(root.run_id);
    expect(runs.map((r) => r.status)).toEqual(['killed by user', 'killed by user', 'killed by user']);
    expect(runs.every((r) => r.finished_at !== null)).toBe(true);
    const tasks = (await server.api<TaskView[]>('GET', `/task?run_id=${root.run_id}`)).body;
    expect(tasks.map((t) => [t.complete, t.status])).toEqual([
      [true, 'failed'],
      [true, 'failed'],
      [true, 'failed'],
    ]);
    // The nodes reported nothing over the kill: once each has finished with its runs, no run moved back.
    await Promise.all(nodes.map((n) => n.node.runs.idle()));
    expect((await treeRuns(root.run_id)).map((r) => r.status)).toEqual([
      'killed by user',
      'killed by user',
      'killed by user',
    ]);
  }, 240_000);

  it('a node offline during the kill stops the run when it reconnects; killed runs never start after its restart', async () => {
    const b = fed.orgs[1]!;
    const nodeB = nodes[1]!;
    const running = await postChain(b.id, [], 600);
    const [run] = await until(
      'the run active at B',
      () => treeRuns(running.run_id),
      (runs) => runs[0]?.status === 'active',
      120_000,
      250,
    );
    expect(runningContainers(nodeB)).toHaveLength(1);

    // Node B goes away; its container keeps running (a node stop leaves algorithms running, to reattach them).
    await nodeB.node.stop();
    await until(
      'node B offline',
      async () => (await server.api<{ status: string }>('GET', `/node/${b.nodeId}`)).body.status,
      (s) => s === 'offline',
      20_000,
      100,
    );
    expect(runningContainers(nodeB)).toHaveLength(1);
    expect((await server.api('POST', '/kill/task', { id: running.id })).status).toBe(200);
    // A second run, posted and then killed with its node's runs while the node is offline.
    const pending = await postChain(b.id, [], 600);
    const killNode = await server.api<{ msg: string }>('POST', '/kill/node/tasks', { id: b.nodeId });
    expect(killNode.status).toBe(200);
    expect(killNode.body.msg).toContain('is offline');
    const [pendingRun] = await treeRuns(pending.run_id);
    expect(pendingRun).toMatchObject({ status: 'killed by user', started_at: null });

    // The restarted node stops the container at its reconnection, and never starts the killed run.
    const restarted = await startE2eNode(server, b, nodeB.name, false, '', undefined, nodeB.configFile);
    nodes[1] = restarted;
    const back = Date.now();
    await until(
      'the container stopped',
      async () => runningContainers(restarted).length,
      (n) => n === 0,
      20_000,
      50,
    );
    console.log(`a node back online stopped the run killed while it was away in ${Date.now() - back} ms`);
    // A fetch of open work now, and everything it took on done: the killed run was not among it.
    await restarted.node.sync();
    await restarted.node.runs.idle();
    expect(containerExists(pendingRun!.id, restarted)).toBe(false);
    expect(runningContainers(restarted)).toHaveLength(0);
    expect(await treeRuns(running.run_id)).toEqual([
      expect.objectContaining({ id: run!.id, status: 'killed by user' }),
    ]);
    expect(await treeRuns(pending.run_id)).toEqual([
      expect.objectContaining({ id: pendingRun!.id, status: 'killed by user', started_at: null }),
    ]);
  }, 240_000);
});
