/**
 * End to end, all real (server, two nodes in-process, algorithms in Docker): a master waits for its sub-task through
 * the node proxy's long-poll (docs/container-environment.md#waiting-for-a-sub-task) instead of polling, in the
 * TypeScript and the Python algorithm tools. The proxy's own log (level debug) shows each request a container made.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import {
  createFederation,
  type E2eServer,
  type Federation,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '..');
const CSV_A = 'age\n30\n40\n50\n';
const CSV_B = 'age\n20\n25\n35\n45\n';
const EXPECTED = (30 + 40 + 50 + 20 + 25 + 35 + 45) / 7;
const tag = `wait${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

interface LogLine {
  time: number;
  component?: string;
  event?: string;
  method?: string;
  path?: string;
  task_id?: number;
  outcome?: string;
}

let server: E2eServer;
let fed: Federation;
const nodes: StartedNode[] = [];
/** The log of the master's node (organization 0). */
const masterLog: LogLine[] = [];

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  server = await startE2eServer();
  fed = await createFederation(server, false, tag, [CSV_A, CSV_B]);
  const capture = pino(
    { level: 'debug' },
    { write: (line: string) => void masterLog.push(JSON.parse(line) as LogLine) },
  );
  nodes.push(
    await startE2eNode(server, fed.orgs[0]!, `${tag}-0`, false, '', capture),
    await startE2eNode(server, fed.orgs[1]!, `${tag}-1`, false),
  );
}, 180_000);

afterAll(async () => {
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of nodes) removeNodeObjects(n.name);
}, 60_000);

interface ResultView {
  status: string;
  result: string | null;
  log: string | null;
  finished_at: string | null;
}

const utcMs = (iso: string): number => Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(iso) ? iso : `${iso}Z`);

async function runMaster(image: string): Promise<void> {
  const org = fed.orgs[0]!.id;
  const input = `json.${JSON.stringify({ method: 'central_average', args: ['age'], kwargs: {}, master: true, output_format: 'json' })}`;
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'wait',
    image,
    collaboration_id: fed.collaborationId,
    database: 'default',
    organizations: [{ id: org, input: encodeBase64(Buffer.from(input)) }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const taskId = posted.body.id;
  await until(
    'master complete',
    async () => (await server.api<{ complete: boolean }>('GET', `/task/${taskId}`)).body,
    (t) => t.complete === true,
    120_000,
    200,
  );

  // What the researcher sees: the average over both organizations.
  const [master] = (await server.api<ResultView[]>('GET', `/task/${taskId}/result`)).body;
  expect(master!.status, master!.log ?? '').toBe('completed');
  const out = JSON.parse(Buffer.from(master!.result!, 'base64').toString().slice(5)) as {
    average: number;
    count: number;
  };
  expect(out.count).toBe(7);
  expect(out.average).toBeCloseTo(EXPECTED, 10);

  // The sub-task ran at both organizations.
  const listed = (await server.api<{ data: { id: number }[] }>('GET', `/task?parent_id=${taskId}`)).body;
  const children = Array.isArray(listed) ? (listed as { id: number }[]) : listed.data;
  expect(children).toHaveLength(1);
  const childId = children[0]!.id;
  const sub = (await server.api<ResultView[]>('GET', `/task/${childId}/result`)).body;
  expect(sub.map((r) => r.status)).toEqual(['completed', 'completed']);

  // The master asked for its sub-task once, through the long-poll, instead of polling.
  const reads = masterLog.filter(
    (l) => l.event === 'proxy.request' && l.method === 'GET' && l.path === `/task/${childId}`,
  );
  expect(reads).toHaveLength(1);
  const answered = masterLog.filter((l) => l.event === 'proxy.wait_answered' && l.task_id === childId);
  expect(answered.map((l) => l.outcome)).toEqual(['complete']);
  // ... and was answered soon after the last run of the sub-task finished.
  const lastFinished = Math.max(...sub.map((r) => utcMs(r.finished_at!)));
  expect(answered[0]!.time - lastFinished).toBeLessThan(1500);
}

describe('a master waits for its sub-task without polling', () => {
  it('TypeScript algorithm tools', () => runMaster('federa/average-ts:local'), 150_000);
  it('Python algorithm tools', () => runMaster('federa/average-python:local'), 150_000);
});
