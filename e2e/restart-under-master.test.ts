/**
 * A node's graceful restart under a master algorithm that waits for its sub-task (docs/reliability.md): the master
 * runs on node A (a real `vnode-local` process) and waits, through A's proxy, for a sub-task whose run at
 * organization B cannot start yet (node B is not started). Node A is restarted (SIGTERM, start again) meanwhile; then
 * node B is started. The run must complete with the average over both organizations, in each language's tools. The
 * images are built from this checkout (scripts/build-algorithms.sh; FEDERA_ALGORITHM_TAG names their tag, default
 * `local`). Needs Docker.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import {
  createFederation,
  createNodeProcess,
  type E2eServer,
  type Federation,
  type NodeProcess,
  startE2eServer,
  until,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '..');
const TAG = process.env.FEDERA_ALGORITHM_TAG ?? 'local';
const CSV_A = 'age\n30\n40\n50\n';
const CSV_B = 'age\n20\n25\n35\n45\n';
const EXPECTED = (30 + 40 + 50 + 20 + 25 + 35 + 45) / 7;
const tag = `rum${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

interface ResultView {
  status: string;
  result: string | null;
  log: string | null;
}

let server: E2eServer;

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), {
    stdio: 'ignore',
    env: { ...process.env, ALGORITHM_TAG: TAG },
  });
  server = await startE2eServer('127.0.0.1');
}, 300_000);

afterAll(async () => {
  await server?.close();
}, 60_000);

const readyCount = (np: NodeProcess): number => np.log().filter((l) => l.event === 'node.ready').length;
const waitReady = (np: NodeProcess, n: number): Promise<number> =>
  until(
    `${np.name} ready (${n})`,
    () => readyCount(np),
    (c) => c >= n,
    60_000,
    100,
  );

describe.each(['python', 'ts'])('a restart of the node of a waiting master (%s tools)', (language) => {
  let fed: Federation;
  let a: NodeProcess;
  let b: NodeProcess;

  beforeAll(async () => {
    fed = await createFederation(server, false, `${tag}${language}`, [CSV_A, CSV_B]);
    [a, b] = (await Promise.all(
      [CSV_A, CSV_B].map((csv, i) =>
        createNodeProcess({
          mode: 'host',
          name: `${tag}-${language}-${i}`,
          apiKey: fed.orgs[i]!.apiKey,
          serverPort: server.port,
          encrypted: false,
          csv,
        }),
      ),
    )) as [NodeProcess, NodeProcess];
  }, 60_000);

  afterAll(async () => {
    await a?.remove();
    await b?.remove();
  }, 60_000);

  it('does not fail the run: the master gets its sub-task once the node is back', async () => {
    a.start();
    await waitReady(a, 1);
    const input = `json.${JSON.stringify({ method: 'central_average', args: ['age'], kwargs: {}, master: true, output_format: 'json' })}`;
    const posted = await server.api<{ id: number }>('POST', '/task', {
      name: 'restart-under-master',
      image: `federa/average-${language}:${TAG}`,
      collaboration_id: fed.collaborationId,
      database: 'default',
      organizations: [{ id: fed.orgs[0]!.id, input: encodeBase64(Buffer.from(input)) }],
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    const taskId = posted.body.id;

    // The master has made its sub-task and asks A's proxy for it; the sub-task's run at A is done, B's waits.
    const childId = await until(
      'the sub-task',
      async () => {
        const listed = (await server.api<{ data: { id: number }[] }>('GET', `/task?parent_id=${taskId}`))
          .body;
        return (Array.isArray(listed) ? (listed as { id: number }[]) : listed.data)[0]?.id;
      },
      (id) => id !== undefined,
      90_000,
      200,
    );
    await until(
      'the master to wait for its sub-task',
      () => a.log().some((l) => l.event === 'proxy.request' && l.path === `/task/${childId}`),
      Boolean,
      30_000,
      100,
    );
    const subRuns = async () => (await server.api<ResultView[]>('GET', `/task/${childId}/result`)).body;
    await until(
      "the sub-task's run at A",
      subRuns,
      (runs) => runs.filter((r) => r.status === 'completed').length === 1,
      60_000,
      200,
    );

    // A restarts while the master waits.
    await a.stop();
    expect(a.exitCode()).toBe(0);
    a.start();
    await waitReady(a, 2);

    // B comes: the sub-task completes, and the master with it.
    b.start();
    await waitReady(b, 1);
    await until(
      'the master to finish',
      async () => (await server.api<ResultView[]>('GET', `/task/${taskId}/result`)).body[0]!,
      (r) => !['pending', 'initializing', 'active'].includes(r.status),
      120_000,
      200,
    );
    const [master] = (await server.api<ResultView[]>('GET', `/task/${taskId}/result`)).body;
    expect(master!.status, master!.log ?? '').toBe('completed');
    const out = JSON.parse(Buffer.from(master!.result!, 'base64').toString().slice(5)) as {
      average: number;
      count: number;
    };
    expect(out.count).toBe(7);
    expect(out.average).toBeCloseTo(EXPECTED, 10);
    expect((await subRuns()).map((r) => r.status)).toEqual(['completed', 'completed']);
    await a.stop();
    await b.stop();
  }, 300_000);
});
