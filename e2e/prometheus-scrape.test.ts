/**
 * End to end, all real: Debian's Prometheus scrapes a server and two in-process nodes (algorithms in Docker) every
 * second while a federated average runs, and its HTTP API shows the documented series, moving as the task does.
 * Needs the `prometheus` binary (scripts/setup-machine.sh), Docker and the algorithm images.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';
import {
  createFederation,
  type E2eServer,
  type Federation,
  freePort,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '..');
const tag = `prom${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

let server: E2eServer;
let fed: Federation;
const nodes: StartedNode[] = [];
let prometheus: ChildProcess | undefined;
let promUrl: string;
let promDir: string;
const promLog: string[] = [];

/** Asks Prometheus for an instant vector; returns each series' labels and value. */
async function query(expr: string): Promise<{ metric: Record<string, string>; value: number }[]> {
  const r = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await r.json()) as {
    status: string;
    data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
    error?: string;
  };
  if (body.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${body.error}`);
  return body.data!.result.map((s) => ({ metric: s.metric, value: Number(s.value[1]) }));
}

/** The single value of an expression that sums to one series (0 when Prometheus has none). */
const scalar = async (expr: string): Promise<number> => (await query(`sum(${expr})`))[0]?.value ?? 0;

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  server = await startE2eServer();
  fed = await createFederation(server, false, tag, ['age\n30\n40\n', 'age\n20\n']);
  for (const [i, org] of fed.orgs.entries())
    nodes.push(await startE2eNode(server, org, `${tag}-${i}`, false, '  metrics: {port: 0}\n'));

  promDir = mkdtempSync(join(tmpdir(), `federa-${tag}-`));
  const hostPort = (url: string): string => new URL(url).host;
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
    scrape_configs: [
      {
        job_name: 'federa-server',
        static_configs: [{ targets: [hostPort(server.server.handle.metricsUrl!)] }],
      },
      {
        job_name: 'federa-node',
        static_configs: [{ targets: nodes.map((n) => hostPort(n.node.metricsUrl!)) }],
      },
    ],
  };
  // JSON is YAML: the configuration needs no YAML writer.
  writeFileSync(join(promDir, 'prometheus.yml'), JSON.stringify(config));
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${join(promDir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(promDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
      '--query.lookback-delta=10s',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  prometheus.stderr!.on('data', (chunk: Buffer) => promLog.push(chunk.toString()));
  await until(
    'Prometheus to scrape the server and both nodes',
    async () => {
      try {
        return (await query('up == 1')).length;
      } catch {
        return 0;
      }
    },
    (n) => n === 3,
    30_000,
    250,
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${promLog.join('').slice(-3000)}`);
  });
}, 180_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
    prometheus.kill('SIGTERM');
    await exited;
  }
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of nodes) removeNodeObjects(n.name);
  if (promDir) rmSync(promDir, { recursive: true, force: true });
}, 60_000);

describe('Prometheus scraping a server and its nodes', () => {
  it('shows the documented series, and they move as a federated task runs', async () => {
    const before = {
      completed: await scalar('federa_tasks{status="completed"}'),
      runsCompleted: await scalar('federa_runs{status="completed"}'),
      posts: await scalar('federa_http_request_duration_seconds_count{route="/api/task",method="POST"}'),
      nodeCompleted: await scalar('federa_node_run_status_changes_total{status="completed"}'),
      starts: await scalar('federa_node_container_start_seconds_count{outcome="started"}'),
      proxied: await scalar('federa_node_proxy_request_duration_seconds_count{route="/task",method="POST"}'),
      down: await scalar('federa_node_downloaded_bytes_total{via="node"}'),
    };
    expect(await scalar('federa_sockets_connected{kind="node"}')).toBe(2);
    expect(await scalar('federa_nodes{status="online"}')).toBe(2);
    expect(await scalar('federa_node_server_connected')).toBe(2);

    const input = Buffer.from(
      `json.${JSON.stringify({ method: 'central_average', args: ['age'], kwargs: {}, master: true, output_format: 'json' })}`,
    );
    const posted = await server.api<{ id: number }>('POST', '/task', {
      name: 'prometheus',
      image: 'federa/average-ts:local',
      collaboration_id: fed.collaborationId,
      database: 'default',
      organizations: [{ id: fed.orgs[0]!.id, input: encodeBase64(input) }],
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    await until(
      'the task to complete',
      async () => (await server.api<{ complete: boolean }>('GET', `/task/${posted.body.id}`)).body,
      (t) => t.complete,
      90_000,
      200,
    );
    const results = (await server.api<{ status: string }[]>('GET', `/task/${posted.body.id}/result`)).body;
    expect(results.map((r) => r.status)).toEqual(['completed']);

    // The master and its sub-task (one run at each node): two tasks completed, three runs.
    await until(
      'Prometheus to see the tasks complete',
      () => scalar('federa_tasks{status="completed"}'),
      (n) => n >= before.completed + 2,
      20_000,
      250,
    );
    expect(await scalar('federa_runs{status="completed"}')).toBe(before.runsCompleted + 3);
    await until(
      'Prometheus to see the nodes report',
      () => scalar('federa_node_run_status_changes_total{status="completed"}'),
      (n) => n >= before.nodeCompleted + 3,
      20_000,
      250,
    );
    expect(
      await scalar('federa_http_request_duration_seconds_count{route="/api/task",method="POST"}'),
    ).toBeGreaterThanOrEqual(before.posts + 2);
    expect(await scalar('federa_node_container_start_seconds_count{outcome="started"}')).toBe(
      before.starts + 3,
    );
    expect(await scalar('federa_node_container_run_seconds_count{exit="zero"}')).toBeGreaterThanOrEqual(3);
    expect(
      await scalar('federa_node_proxy_request_duration_seconds_count{route="/task",method="POST"}'),
    ).toBe(before.proxied + 1);
    expect(await scalar('federa_node_downloaded_bytes_total{via="node"}')).toBeGreaterThan(before.down);
    expect(await scalar('federa_node_uploaded_bytes_total{via="proxy"}')).toBeGreaterThan(0);
    expect(await scalar('federa_node_image_pulls_total')).toBeGreaterThanOrEqual(3);
    // No label carries an id or a raw URL.
    const routes = await query('count by (route) (federa_http_request_duration_seconds_count)');
    for (const { metric } of routes) expect(metric.route, metric.route).toMatch(/^(unmatched|[^0-9]*)$/);

    // Every series docs/observability.md lists is in Prometheus (the PostgreSQL pool's only on PostgreSQL).
    const doc = readFileSync(join(ROOT, 'docs/observability.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `(federa_[a-z0-9_]+)` \| (\w+) \|/gm)].map((m) => ({
      name: m[1]!,
      type: m[2]!,
    }));
    expect(documented.length).toBeGreaterThan(20);
    const names = new Set(
      ((await (await fetch(`${promUrl}/api/v1/label/__name__/values`)).json()) as { data: string[] }).data,
    );
    const missing = documented
      .filter((d) => server.ctx.dbh.dialect === 'postgres' || !d.name.startsWith('federa_db_pool_'))
      .map((d) => (d.type === 'histogram' ? `${d.name}_count` : d.name))
      .filter((n) => !names.has(n));
    expect(missing).toEqual([]);
    for (const name of ['nodejs_eventloop_lag_p99_seconds', 'process_cpu_seconds_total'])
      expect(names).toContain(name);
  }, 150_000);
});
