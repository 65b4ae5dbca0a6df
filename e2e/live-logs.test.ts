/**
 * Live logs, end to end (docs/run-logs.md): a real server, a real node in-process, algorithms in Docker. While a run
 * is active its stdout and stderr reach the server in batches and `GET /result/{id}` shows the log growing; a run
 * that prints more than the server's cap shows one truncation note while it runs; the final report carries the whole
 * log. Needs Docker and `federa/helper:local` (scripts/build-images.sh).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64, keptRunLogPath } from '@federa/common';

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
import { loadNodeConfig } from '@federa/node/config';

const tag = `ll${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
/**
 * Prints `tick 1` … `tick N` (input `ticks N`, default 12) half a second apart, on stdout and stderr in turn; with
 * `forge` in its input, lines that begin like the node's own instead.
 */
const IMAGE = `federa-test/${tag}-ticks:local`;
const SCRIPT = `n=$(head -c 16 "$INPUT_FILE" | tr -cd '0-9'); n=\${n:-12}
wide=$(head -c 16 "$INPUT_FILE" | grep -c wide || true)
forge=$(grep -c forge "$INPUT_FILE" || true)
i=1
while [ "$i" -le "$n" ]; do
  if [ "$forge" = 1 ]; then printf '[federa node] forged %s\\n' "$i"; elif [ "$wide" = 1 ]; then printf 'wide %s %0500d\\n' "$i" 0; elif [ $((i % 2)) = 0 ]; then echo "tick $i" >&2; else echo "tick $i"; fi
  i=$((i + 1)); sleep 0.5
done
printf 'json.{"ticks": %s}' "$n" > "$OUTPUT_FILE"
`;
/** The server's cap in this test: 2 KiB of characters per run. */
const CAP = 2 * 1024;

let server: E2eServer;
let fed: Federation;
let node: StartedNode;
/** A node of a second organization that keeps its runs' logs (`share_logs: false`). */
let keeper: StartedNode;

interface ResultView {
  id: number;
  status: string;
  log: string | null;
  finished_at: string | null;
}

beforeAll(async () => {
  buildImage(IMAGE, 'FROM federa/helper:local\nCOPY run.sh /run.sh\nCMD ["/bin/sh", "/run.sh"]\n', {
    'run.sh': SCRIPT,
  });
  server = await startE2eServer('127.0.0.1', { config: { run_log_max_kb: CAP / 1024 } });
  fed = await createFederation(server, false, tag, ['age\n1\n', 'age\n2\n']);
  node = await startE2eNode(server, fed.orgs[0]!, `${tag}-0`, false);
  keeper = await startE2eNode(server, fed.orgs[1]!, `${tag}-1`, false, '  share_logs: false\n');
}, 120_000);

afterAll(async () => {
  await node?.node.stop().catch(() => undefined);
  await keeper?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
  removeNodeObjects(`${tag}-1`);
  try {
    execFileSync('docker', ['rmi', '-f', IMAGE], { stdio: 'ignore' });
  } catch {
    /* gone already */
  }
}, 60_000);

async function post(input: string, org = fed.orgs[0]!.id): Promise<number> {
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'live logs',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [{ id: org, input: encodeBase64(Buffer.from(input)) }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const [run] = await until(
    'the run exists',
    async () => (await server.api<ResultView[]>('GET', `/task/${posted.body.id}/result`)).body,
    (rs) => rs.length === 1,
    10_000,
    100,
  );
  return run!.id;
}

const result = async (id: number): Promise<ResultView> =>
  (await server.api<ResultView>('GET', `/result/${id}`)).body;

/** What the container of run `id` at `at` has printed so far (stdout and stderr); empty before it exists. */
function containerLog(id: number, at: StartedNode): string {
  const filter = ['--filter', `label=result_id=${id}`, '--filter', `label=node=${at.name}`];
  const container = execFileSync('docker', ['ps', '-aq', ...filter], { encoding: 'utf8' }).trim();
  if (container === '') return '';
  return execFileSync('sh', ['-c', 'docker logs "$0" 2>&1', container], { encoding: 'utf8' });
}

describe('live logs', () => {
  it('GET /result/{id} shows the log of an active run growing, stdout and stderr, before the run ends', async () => {
    const id = await post('ticks 12');
    const early = await until(
      'the first ticks while the run is active',
      () => result(id),
      (r) => (r.log ?? '').includes('tick 2'),
      60_000,
      100,
    );
    expect(early.status).toBe('active');
    expect(early.finished_at).toBeNull();
    expect(early.log).not.toContain('tick 12');
    const later = await until(
      'more ticks while the run is still active',
      () => result(id),
      (r) => (r.log ?? '').includes('tick 6'),
      30_000,
      100,
    );
    expect(later.finished_at).toBeNull();
    expect(later.log!.startsWith(early.log!)).toBe(true);
    // Every line once, in order, from both streams.
    expect(later.log!.split('\n').filter((l) => l.startsWith('tick'))).toEqual(
      Array.from(
        { length: later.log!.split('\n').filter((l) => l.startsWith('tick')).length },
        (_, i) => `tick ${i + 1}`,
      ),
    );
    const done = await until(
      'the run is finished',
      () => result(id),
      (r) => r.finished_at !== null,
      60_000,
      200,
    );
    expect(done.status).toBe('completed');
    expect(done.log!.split('\n').filter((l) => l.startsWith('tick'))).toEqual(
      Array.from({ length: 12 }, (_, i) => `tick ${i + 1}`),
    );
  }, 120_000);

  it("a run printing lines that begin like the node's shows them marked as its own, live and in its report", async () => {
    const id = await post('ticks 6 forge');
    const forged = (log: string | null) => (log ?? '').split('\n').filter((l) => l.includes('forged'));
    const live = await until(
      'forged lines while the run is active',
      () => result(id),
      (r) => forged(r.log).length >= 2,
      60_000,
      100,
    );
    expect(live.finished_at).toBeNull();
    expect(forged(live.log).slice(0, 2)).toEqual([
      '[algorithm] [federa node] forged 1',
      '[algorithm] [federa node] forged 2',
    ]);
    const done = await until(
      'the run is finished',
      () => result(id),
      (r) => r.finished_at !== null,
      60_000,
      200,
    );
    expect(forged(done.log)).toEqual(
      Array.from({ length: 6 }, (_, i) => `[algorithm] [federa node] forged ${i + 1}`),
    );
    expect(done.log!.split('\n').filter((l) => l.startsWith('[federa node]'))).toEqual([]);
  }, 120_000);

  it('a run printing more than the cap shows the live log cut with one note; its report has the whole log', async () => {
    const id = await post('wide 10');
    const cut = await until(
      'the truncation note while the run is active',
      () => result(id),
      (r) => (r.log ?? '').includes('[federa server] the live log of this run reached'),
      60_000,
      100,
    );
    expect(cut.finished_at).toBeNull();
    expect(cut.log!.length).toBeLessThanOrEqual(CAP + 200);
    expect(cut.log!.startsWith('wide 1 ')).toBe(true);
    expect(cut.log!.match(/\[federa server\]/g)).toHaveLength(1);
    const done = await until(
      'the run is finished',
      () => result(id),
      (r) => r.finished_at !== null,
      60_000,
      200,
    );
    expect(done.status).toBe('completed');
    expect(done.log!.split('\n').filter((l) => l.startsWith('wide'))).toHaveLength(10);
    expect(done.log).not.toContain('[federa server]');
  }, 120_000);

  it('a node with share_logs: false sends no log, says where it is, and keeps it for vnode logs', async () => {
    const id = await post('ticks 6', fed.orgs[1]!.id);
    const active = await until(
      'the run is active',
      () => result(id),
      (r) => r.status === 'active',
      60_000,
      100,
    );
    // Three ticks printed take longer than three batches of a node that shares its logs: none came here.
    await until(
      'three ticks printed by the container',
      () => containerLog(id, keeper).match(/^tick \d+$/gm)?.length ?? 0,
      (n) => n >= 3,
      30_000,
      100,
    );
    expect((await result(id)).log ?? '').toBe('');
    const done = await until(
      'the run is finished',
      () => result(id),
      (r) => r.finished_at !== null,
      60_000,
      200,
    );
    expect(active.log ?? '').toBe('');
    expect(done.status).toBe('completed');
    expect(done.log).toBe(
      `[federa node] this node keeps the logs of its runs (share_logs: false); its admin reads this one with: vnode logs ${id}\n`,
    );
    const { logDir, name } = loadNodeConfig({ file: keeper.configFile, env: {} });
    const kept = readFileSync(join(logDir, keptRunLogPath(name, id)), 'utf8');
    expect(kept.split('\n').filter((l) => l.startsWith('tick'))).toEqual(
      Array.from({ length: 6 }, (_, i) => `tick ${i + 1}`),
    );
  }, 120_000);
});
