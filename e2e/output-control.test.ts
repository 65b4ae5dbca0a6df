/**
 * End to end, all real (server, nodes in-process, Docker, the `vnode` CLI): the data owner decides what leaves
 * (docs/output-control.md). A table with a cell of 2 is refused, with the rule and threshold in its status, log and
 * the audit log; with suppression the cell arrives blanked; a held result is released through `vnode review` and
 * arrives decrypted at the researcher; a refused one arrives refused with the note; a node restarted while holding
 * keeps the hold. The algorithm writes its input as its output, so each task's input is the table it returns.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RsaCryptor, openSealedLog } from '@federa/common';

import {
  buildImage,
  createFederation,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  until,
  type E2eServer,
  type Federation,
  type StartedNode,
} from '@federa/testing';

const tag = `oc${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const IMAGE = `output-${tag}-echo:local`;
const VNODE = fileURLToPath(new URL('../packages/cli/dist/bin/vnode.js', import.meta.url));

const policy = (onFailure: 'refuse' | 'suppress'): string => `  share_logs: true
  policies:
    output:
      formats: [json]
      on_failure: ${onFailure}
      checks: {min_cell_count: 3}
      declarations:
        - {image: '^output-${tag}-', output: {kind: count_table, counts: table}}
      hold: {functions: [held], expire_after_hours: 1}
`;

let server: E2eServer;
let fed: Federation;
/** Refuses failing outputs, holds the function `held`. */
let refusing: StartedNode;
/** Suppresses failing cells. */
let suppressing: StartedNode;
let researcher: RsaCryptor;

interface RunView {
  id: number;
  status: string;
  result: string | null;
  log: string | null;
  finished_at: string | null;
}

type Entry = Record<string, unknown> & { seq: number; event: string };
const auditOf = (n: StartedNode): Entry[] =>
  readFileSync(join(n.dataDir, 'audit', 'node.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);

beforeAll(async () => {
  buildImage(
    IMAGE,
    'FROM federa/helper:local\nCMD ["/bin/sh", "-c", "cp \\"$INPUT_FILE\\" \\"$OUTPUT_FILE\\"; echo tabulated"]\n',
  );
  server = await startE2eServer('127.0.0.1');
  fed = await createFederation(server, true, tag, ['age\n11\n', 'age\n22\n']);
  refusing = await startE2eNode(server, fed.orgs[0]!, `${tag}-0`, true, policy('refuse'));
  suppressing = await startE2eNode(server, fed.orgs[1]!, `${tag}-1`, true, policy('suppress'));
  // The researcher is the root user, of the first organization: its node's key opens what is sent to it.
  researcher = await RsaCryptor.fromFile(join(refusing.dataDir, 'private_key.pem'));
}, 180_000);

afterAll(async () => {
  await refusing?.node.stop().catch(() => undefined);
  await suppressing?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
  removeNodeObjects(`${tag}-1`);
  for (const n of [refusing, suppressing])
    if (n) rmSync(join(n.dataDir, '..'), { recursive: true, force: true });
  try {
    execFileSync('docker', ['rmi', '-f', IMAGE], { stdio: 'ignore' });
  } catch {
    /* gone already */
  }
}, 60_000);

/** Posts `input` (JSON, `json.`-prefixed) to organization `org`, encrypted for it; returns the task id. */
async function post(org: number, input: Record<string, unknown>): Promise<number> {
  const orgId = fed.orgs[org]!.id;
  const key = (await server.api('GET', `/organization/${orgId}`)).body.public_key as string;
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'output control',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [
      {
        id: orgId,
        input: researcher.encryptBytesToString(Buffer.from(`json.${JSON.stringify(input)}`), key),
      },
    ],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  return posted.body.id;
}

const runOf = async (taskId: number): Promise<RunView> =>
  (await server.api<RunView[]>('GET', `/task/${taskId}/result`)).body[0]!;

const waitFor = (taskId: number, done: (r: RunView) => boolean, what: string): Promise<RunView> =>
  until(what, () => runOf(taskId), done, 90_000, 100);

const finished = (taskId: number): Promise<RunView> =>
  waitFor(taskId, (r) => r.finished_at !== null, 'the run is finished');

/** The bytes the researcher decrypts (a run without output sends an empty one, encrypted like any other). */
const plainOf = (r: RunView): Buffer =>
  r.result ? researcher.decryptStringToBytes(r.result) : Buffer.alloc(0);

const outputOf = (r: RunView): unknown => {
  const plain = researcher.decryptStringToBytes(r.result!).toString('utf8');
  expect(plain.startsWith('json.')).toBe(true);
  return JSON.parse(plain.slice(5));
};

const logOf = (r: RunView): string => openSealedLog(researcher, r.log ?? '');

const vnode = (...args: string[]): Promise<{ stdout: string }> =>
  promisify(execFile)(process.execPath, [VNODE, 'review', ...args], { encoding: 'utf8' });

/**
 * The count 917 as a value: not the digits inside a timestamp's milliseconds (`.917Z`), an id or a digest, which
 * may hold them by chance.
 */
const COUNT_917 = /(?<![\w.])917(?![\w.])/;

describe('the data owner decides what leaves', () => {
  it('refuses a table with a cell of 2, naming the rule and threshold, never the values', async () => {
    const taskId = await post(0, { method: 'crosstab', table: { smokers: 2, others: 917 } });
    const run = await finished(taskId);
    expect(run.status).toBe('output refused');
    expect(plainOf(run).length).toBe(0);
    const log = logOf(run);
    expect(log).toContain(
      "[federa node] this node's output policy refused the output: rule min_cell_count (threshold 3): 1 of 2 cells of 'table' count more than 0 and fewer than 3",
    );
    expect(log).not.toMatch(COUNT_917);
    const refused = auditOf(refusing).find((e) => e.event === 'output.refused' && e.task_id === taskId);
    expect(refused).toMatchObject({
      rule: 'min_cell_count',
      threshold: 3,
      function: 'crosstab',
      declared: 'count_table',
      result_id: run.id,
    });
    expect(JSON.stringify(auditOf(refusing))).not.toMatch(COUNT_917);
    expect(auditOf(refusing).find((e) => e.event === 'run.finished' && e.task_id === taskId)).toMatchObject({
      status: 'output refused',
    });
  });

  it('with suppression, the cell arrives blanked and marked; the rest arrives as written', async () => {
    const taskId = await post(1, { method: 'crosstab', table: { smokers: 2, others: 917 } });
    const run = await finished(taskId);
    expect(run.status).toBe('completed');
    expect(outputOf(run)).toEqual({
      method: 'crosstab',
      table: { smokers: null, others: 917 },
      federa_suppressed: [{ rule: 'min_cell_count', threshold: 3, fields: ['table'], cells: [['smokers']] }],
    });
    expect(logOf(run)).toContain("1 cells of 'table' by min_cell_count (threshold 3)");
    expect(
      auditOf(suppressing).find((e) => e.event === 'output.suppressed' && e.task_id === taskId),
    ).toMatchObject({ suppressed: [{ rule: 'min_cell_count', threshold: 3, field: 'table', cells: 1 }] });
  });

  it('holds a result with no content at the server, and the data officer releases it through vnode review', async () => {
    const input = { method: 'held', table: { smokers: 31, others: 917 } };
    const taskId = await post(0, input);
    const held = await waitFor(taskId, (r) => r.status === 'awaiting release', 'the run is held');
    expect(held).toMatchObject({ result: null, log: null, finished_at: null });
    expect((await server.api('GET', `/task/${taskId}`)).body).toMatchObject({
      status: 'active',
      complete: false,
    });
    const review = join(refusing.dataDir, 'review');

    const list = (await vnode('list', '--dir', review)).stdout;
    expect(list).toMatch(
      new RegExp(`^${held.id}\\s+${taskId}\\s+${IMAGE.replace(/[.]/g, '\\.')}\\s+held\\s+1\\s`, 'm'),
    );
    const shown = (await vnode('show', String(held.id), '--dir', review)).stdout;
    expect(shown).toContain('"others": 917');
    expect(shown).toMatch(/^held because +functions: held$/m);

    await vnode('release', String(held.id), '--dir', review, '--note', 'aggregate only');
    const run = await finished(taskId);
    expect(run.status).toBe('completed');
    expect(outputOf(run)).toEqual(input);
    expect(logOf(run)).toMatch(/released by this node's data officer \(.+\): aggregate only/);
    const events = auditOf(refusing)
      .filter((e) => e.task_id === taskId && String(e.event).startsWith('output.'))
      .map((e) => e.event);
    expect(events).toEqual(['output.checked', 'output.held', 'output.released']);
    expect((await vnode('list', '--dir', review)).stdout).toBe(`no result is held (${review})\n`);
  });

  it('a refused held result arrives refused with the note, and nothing of the run', async () => {
    const taskId = await post(0, { method: 'held', table: { smokers: 31, others: 917 } });
    const held = await waitFor(taskId, (r) => r.status === 'awaiting release', 'the run is held');
    const review = join(refusing.dataDir, 'review');
    await vnode('refuse', String(held.id), '--dir', review, '--note', 'the cohort is too small to publish');
    const run = await finished(taskId);
    expect(run.status).toBe('release refused');
    expect(plainOf(run).length).toBe(0);
    const log = logOf(run);
    expect(log).toMatch(
      /^\[federa node\] this node's data officer \(.+\) refused to release the result: the cohort is too small to publish\n$/,
    );
    expect(log).not.toContain('tabulated');
    const refused = auditOf(refusing).find(
      (e) => e.event === 'output.release_refused' && e.task_id === taskId,
    );
    expect(refused).toMatchObject({ note: 'the cohort is too small to publish', result_id: held.id });
    expect(typeof refused?.decided_by).toBe('string');
    await expect(vnode('release', String(held.id), '--dir', review)).rejects.toMatchObject({ code: 5 });
  });

  it('keeps a hold across a restart of the node, and releases it after', async () => {
    const input = { method: 'held', table: { a: 5 } };
    const taskId = await post(0, input);
    const held = await waitFor(taskId, (r) => r.status === 'awaiting release', 'the run is held');
    const { configFile } = refusing;
    await refusing.node.stop();
    refusing = await startE2eNode(server, fed.orgs[0]!, `${tag}-0`, true, '', undefined, configFile);
    // Online again, the node has fetched its open runs (the held one among them) and left it held.
    await until(
      'the node is online again',
      async () => (await server.api<{ status: string }>('GET', `/node/${fed.orgs[0]!.nodeId}`)).body.status,
      (s) => s === 'online',
      30_000,
      100,
    );
    await refusing.node.sync();
    expect(await runOf(taskId)).toMatchObject({ status: 'awaiting release', finished_at: null });
    const review = join(refusing.dataDir, 'review');
    expect((await vnode('list', '--dir', review)).stdout).toMatch(new RegExp(`^${held.id}\\s`, 'm'));

    await vnode('release', String(held.id), '--dir', review);
    const run = await finished(taskId);
    expect(run.status).toBe('completed');
    expect(outputOf(run)).toEqual(input);
    // Run once: one run.started for the task, before and after the restart.
    expect(auditOf(refusing).filter((e) => e.event === 'run.started' && e.task_id === taskId)).toHaveLength(
      1,
    );
  });
});
