/**
 * No run is lost, repeated or falsely reported, whatever fails (docs/reliability.md). For each fault: a burst of
 * tasks for a real node process, running the start-line algorithm (one line per start in the data volume), the fault
 * injected during the burst, then: every run finishes `completed`, each started exactly once, and each output is the
 * algorithm's own for that run. The node talks to the server through a TCP proxy of this test, which is how the
 * network is cut. Needs Docker and the images of scripts/build-images.sh and scripts/build-algorithms.sh.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import {
  createFederation,
  createNodeProcess,
  type E2eServer,
  type NodeLogLine,
  type NodeMode,
  type NodeProcess,
  startE2eServer,
  TcpProxy,
  until,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '..');
const START_LINE = 'federa/start-line:local';
const BURST = 8;
const tag = `fi${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

interface ResultView {
  id: number;
  status: string;
  log: string | null;
  result: string | null;
  finished_at: string | null;
}

let server: E2eServer;

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  server = await startE2eServer('0.0.0.0');
}, 120_000);

afterAll(async () => {
  await server?.close();
}, 60_000);

const readyCount = (np: NodeProcess): number => np.log().filter((l) => l.event === 'node.ready').length;
const waitReady = (np: NodeProcess, n: number): Promise<number> =>
  until(
    `node ready (${n})`,
    async () => readyCount(np),
    (c) => c >= n,
    60_000,
    100,
  );

describe.each<NodeMode>(['host', 'dockerized'])(
  'no run is lost, repeated or falsely reported (%s node)',
  (mode) => {
    let np: NodeProcess;
    let proxy: TcpProxy;
    let orgId = 0;
    let collaborationId = 0;
    let starts = 0;

    beforeAll(async () => {
      const fed = await createFederation(server, false, `${tag}${mode}`, ['age\n1\n', 'age\n2\n']);
      const org = fed.orgs[0]!;
      orgId = org.id;
      collaborationId = fed.collaborationId;
      proxy = await TcpProxy.start('127.0.0.1', server.port, 0, '0.0.0.0');
      np = await createNodeProcess({
        mode,
        name: `${tag}-${mode}`,
        apiKey: org.apiKey,
        serverPort: proxy.port,
        encrypted: false,
        csv: 'age\n1\n',
      });
      np.start();
      await waitReady(np, ++starts);
    }, 90_000);

    afterAll(async () => {
      if (np) {
        if (process.env.FEDERA_TEST_KEEP_LOG)
          console.log(
            np
              .log()
              .map((l) => JSON.stringify(l))
              .join('\n'),
          );
        await np.remove();
      }
      await proxy?.close();
    }, 60_000);

    /** Posts a burst of tasks (each runs `seconds`); returns their task ids. */
    const burst = async (seconds: number): Promise<number[]> => {
      const ids: number[] = [];
      for (let i = 0; i < BURST; i++) {
        const r = await server.api<{ id: number }>('POST', '/task', {
          name: `burst-${i}`,
          image: START_LINE,
          collaboration_id: collaborationId,
          organizations: [{ id: orgId, input: encodeBase64(Buffer.from(`sleep ${seconds}`)) }],
        });
        expect(r.status).toBe(201);
        ids.push(r.body.id);
      }
      return ids;
    };
    const resultOf = async (taskId: number): Promise<ResultView> =>
      (await server.api<ResultView[]>('GET', `/task/${taskId}/result`)).body[0]!;
    const statuses = async (ids: number[]): Promise<ResultView[]> => Promise.all(ids.map(resultOf));

    /**
     * Waits until every run of `runs` (the ones active when the fault began) has finished during the fault: it
     * either reported before the fault took hold, or the node holds a call about it that the fault keeps from the
     * server (`held`: the result id a line of the node's log names such a call for, if any).
     */
    const finishedDuringFault = async (
      runs: ResultView[],
      held: (line: NodeLogLine) => number | undefined,
    ): Promise<void> => {
      await until(
        'every run active at the fault finished, its report held back',
        async () => {
          const waiting = new Set(np.log().map(held));
          const now = await Promise.all(
            runs.map(async (r) => (await server.api<ResultView>('GET', `/result/${r.id}`)).body),
          );
          return now.filter((r) => r.finished_at === null && !waiting.has(r.id)).map((r) => r.id);
        },
        (left) => left.length === 0,
        30_000,
        100,
      );
    };

    /** Every run finished `completed`, started exactly once, with the algorithm's output for that very run. */
    const expectEachRanOnce = async (ids: number[]): Promise<void> => {
      const done = await until(
        'every run of the burst finished',
        () => statuses(ids),
        (rs) => rs.every((r) => r.finished_at !== null),
        120_000,
        250,
      );
      const lines = np.startLines();
      for (const r of done) {
        const folder = `task-${String(r.id).padStart(9, '0')}`;
        expect({ id: r.id, status: r.status }, r.log ?? '').toEqual({ id: r.id, status: 'completed' });
        expect(Buffer.from(r.result ?? '', 'base64').toString(), `output of ${r.id}`).toBe(
          `json.{"ran": "${folder}"}`,
        );
        expect(
          lines.filter((l) => l === `start ${folder}`),
          `starts of ${folder}`,
        ).toHaveLength(1);
        expect(r.log).toContain(`finished ${folder}`);
      }
      expect(np.log().filter((l) => l.event === 'node.uncaught' || l.event === 'run.error')).toEqual([]);
    };

    it('kill -9 of the node during a start burst: every run finishes once, none falsely completed', async () => {
      const ids = await burst(1);
      await until(
        'the burst is being started',
        () => statuses(ids),
        (rs) => rs.some((r) => r.status !== 'pending'),
        30_000,
        20,
      );
      np.kill();
      await until(
        'node gone',
        async () => np.alive(),
        (a) => !a,
        10_000,
        50,
      );
      np.start();
      await waitReady(np, ++starts);
      await expectEachRanOnce(ids);
    }, 150_000);

    it('a node restart during a burst: runs in flight are reattached, reported active, and finish once', async () => {
      const ids = await burst(3);
      await until(
        'some runs active',
        () => statuses(ids),
        (rs) => rs.some((r) => r.status === 'active'),
        30_000,
        50,
      );
      await np.stop();
      np.start();
      await waitReady(np, ++starts);
      // Runs whose containers go on are `active` again soon after the restart, not `initializing`.
      const reattached = np.log().filter((l) => l.event === 'run.reattached' && l.running === true);
      await until(
        'reattached runs reported active',
        () => statuses(ids),
        (rs) =>
          rs.every(
            (r) =>
              r.finished_at !== null ||
              r.status === 'active' ||
              !reattached.some((l) => l.result_id === r.id),
          ),
        10_000,
        100,
      );
      await expectEachRanOnce(ids);
    }, 150_000);

    it('a network cut between node and server during a burst: reports wait and arrive once', async () => {
      const ids = await burst(1);
      const before = await until(
        'some runs active',
        () => statuses(ids),
        (rs) => rs.some((r) => r.status === 'active'),
        30_000,
        50,
      );
      proxy.cut();
      // The algorithms finish while the server cannot be reached.
      await until(
        'reports waiting for the server',
        async () => np.log().filter((l) => l.event === 'server.unreachable' && l.method === 'PATCH').length,
        (n) => n > 0,
        30_000,
        100,
      );
      await finishedDuringFault(
        before.filter((r) => r.status === 'active'),
        (l) =>
          l.event === 'server.unreachable' ? Number(/^\/result\/(\d+)/.exec(String(l.path))?.[1]) : undefined,
      );
      proxy.restore();
      await expectEachRanOnce(ids);
    }, 150_000);

    it('the server answers 500 during a burst (key lookups, status changes, reports): nothing is taken as final', async () => {
      const ids = await burst(1);
      const before = await until(
        'some runs active',
        () => statuses(ids),
        (rs) => rs.some((r) => r.status === 'active'),
        30_000,
        50,
      );
      proxy.answer(500);
      // The algorithms finish while every call of the node is answered 500.
      await until(
        'calls answered 500',
        async () => proxy.injected,
        (n) => n >= 12,
        30_000,
        100,
      );
      await finishedDuringFault(
        before.filter((r) => r.status === 'active'),
        (l) =>
          l.event === 'server.retry'
            ? Number(/(?:report of|output of|initiator's key for) result (\d+)$/.exec(String(l.what))?.[1])
            : undefined,
      );
      proxy.restore();
      await expectEachRanOnce(ids);
      expect(np.log().filter((l) => l.event === 'run.encrypt_failed')).toEqual([]);
    }, 150_000);

    it('a network cut, then kill -9 while reports wait: the kept reports are sent after the restart', async () => {
      const ids = await burst(1);
      await until(
        'some runs active',
        () => statuses(ids),
        (rs) => rs.some((r) => r.status === 'active'),
        30_000,
        50,
      );
      proxy.cut();
      const before = np.log().filter((l) => l.event === 'server.unreachable' && l.method === 'PATCH').length;
      await until(
        'reports waiting',
        async () => np.log().filter((l) => l.event === 'server.unreachable' && l.method === 'PATCH').length,
        (n) => n > before + 2,
        30_000,
        100,
      );
      np.kill();
      await until(
        'node gone',
        async () => np.alive(),
        (a) => !a,
        10_000,
        50,
      );
      proxy.restore();
      np.start();
      await waitReady(np, ++starts);
      await expectEachRanOnce(ids);
    }, 150_000);
  },
);
