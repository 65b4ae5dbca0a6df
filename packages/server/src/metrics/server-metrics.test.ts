import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, FakeNode, Fixtures, startTestServer, taskBody, type TestServer, until } from '@federa/testing';

// A real server (startServer: configuration file, database, sockets, listening) scraped over HTTP as Prometheus
// does; a socket client doing what a node does (FakeNode) runs the tasks.

/** The value of one sample of the Prometheus text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const m of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      found[m[1]!] = m[2]!;
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

let s: TestServer;
let fx: Fixtures;
const scrape = async (server: TestServer, headers: Record<string, string> = {}) => {
  const r = await fetch(server.handle.metricsUrl!, { headers });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
};

beforeAll(async () => {
  s = await startTestServer();
  fx = new Fixtures(s.handle.ctx);
});
afterAll(async () => {
  await s?.close();
});

describe("the server's metrics", () => {
  it('are served at /metrics of the API port to a loopback caller, in the Prometheus text format', async () => {
    expect(s.handle.metricsUrl).toBe(`${s.handle.url}/metrics`);
    const r = await scrape(s);
    expect(r.status).toBe(200);
    expect(r.type).toContain('text/plain; version=0.0.4');
    for (const name of [
      'federa_http_request_duration_seconds',
      'federa_sockets_connected',
      'federa_runs',
      'federa_tasks',
      'federa_nodes',
      'federa_result_store_bytes',
      'federa_result_store_uploads_total',
      'federa_audit_entries_total',
      'nodejs_eventloop_lag_seconds',
      'process_cpu_seconds_total',
    ])
      expect(r.text, name).toContain(`# TYPE ${name} `);
    if (s.handle.ctx.dbh.dialect === 'postgres') {
      // The scrape's own query holds or waits for a connection while the pool is read.
      const inUse = sample(r.text, 'federa_db_pool_connections', { state: 'in_use' }) ?? -1;
      const waiting = sample(r.text, 'federa_db_pool_waiting') ?? -1;
      expect(inUse + waiting).toBeGreaterThanOrEqual(1);
      expect(sample(r.text, 'federa_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    }
  });

  it('count requests by route pattern, method and status, never by URL', async () => {
    const token = s.rootToken;
    for (const id of [987654, 987655])
      expect((await call(s.handle.apiUrl, 'GET', `/task/${id}`, { token })).status).toBe(404);
    expect((await call(s.handle.apiUrl, 'GET', '/no/such/route/42', { token })).status).toBe(404);
    const { text } = await scrape(s);
    expect(
      sample(text, 'federa_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/task/:id',
        status_code: '404',
      }),
    ).toBe(2);
    expect(
      sample(text, 'federa_http_request_duration_seconds_count', {
        method: 'GET',
        route: 'unmatched',
        status_code: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('987654');
    expect(text).not.toContain('/no/such/route');
  });

  it('follow tasks, runs, nodes, sockets and uploads as a node does its work', async () => {
    const org = await fx.organization();
    const collab = await fx.collaboration([org]);
    const node = await fx.node(org, collab);
    const before = (await scrape(s)).text;
    const nodesOnline = sample(before, 'federa_nodes', { status: 'online' }) ?? 0;
    const completed = sample(before, 'federa_tasks', { status: 'completed' }) ?? 0;
    const runsCompleted = sample(before, 'federa_runs', { status: 'completed' }) ?? 0;
    expect(sample(before, 'federa_sockets_connected', { kind: 'node' })).toBe(0);

    const researcher = await fx.user(org, { roles: ['Researcher'] });
    const login = await call(s.handle.apiUrl, 'POST', '/token/user', {
      body: { username: researcher.username, password: researcher.password },
    });
    const task = await call(s.handle.apiUrl, 'POST', '/task', {
      token: login.body.access_token as string,
      body: taskBody(collab, [org]),
    });
    expect(task.status).toBe(201);
    const pending = (await scrape(s)).text;
    expect(sample(pending, 'federa_tasks', { status: 'pending' })).toBeGreaterThanOrEqual(1);
    expect(sample(pending, 'federa_runs', { status: 'pending' })).toBeGreaterThanOrEqual(1);

    // An output through the result store, as a node uploads a large one.
    const resultId = task.body.results[0].id as number;
    const nodeToken = await node.token();
    const bytes = Buffer.from('x'.repeat(3000));
    const put = await fetch(`${s.handle.apiUrl}/result/${resultId}/output`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${nodeToken}`,
        'content-type': 'application/octet-stream',
        'x-federa-sha256': createHash('sha256').update(bytes).digest('hex'),
      },
      body: bytes,
    });
    expect(put.status).toBe(201);

    const fake = new FakeNode(s.handle.url, node.id, node.apiKey);
    await fake.start();
    try {
      const done = await until(
        'the task to count as completed',
        async () => (await scrape(s)).text,
        (text) => (sample(text, 'federa_tasks', { status: 'completed' }) ?? 0) > completed,
        10_000,
      );
      expect(sample(done, 'federa_runs', { status: 'completed' })).toBe(runsCompleted + 1);
      expect(sample(done, 'federa_nodes', { status: 'online' })).toBe(nodesOnline + 1);
      expect(sample(done, 'federa_sockets_connected', { kind: 'node' })).toBe(1);
      expect(sample(done, 'federa_result_store_uploads_total', { outcome: 'stored' })).toBe(1);
      expect(sample(done, 'federa_result_store_uploaded_bytes_total')).toBe(3000);
      expect(sample(done, 'federa_result_store_bytes')).toBeGreaterThanOrEqual(0);
      expect(sample(done, 'federa_audit_entries_total', { outcome: 'written' })).toBeGreaterThan(0);
    } finally {
      await fake.stop();
    }
    await until(
      'the node socket to close',
      async () => sample((await scrape(s)).text, 'federa_sockets_connected', { kind: 'node' }),
      (n) => n === 0,
      5000,
    );
  });

  it('refuse a caller a proxy forwarded, though it comes from the loopback address', async () => {
    const r = await scrape(s, { 'x-forwarded-for': '203.0.113.9' });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.text)).toMatchObject({ code: 'metrics_refused' });
  });
});

describe('metrics on a port of their own, with a token', () => {
  let own: TestServer;
  const token = 'metrics-token-long-enough-1';
  beforeAll(async () => {
    own = await startTestServer({ config: { metrics: { port: 0, token } } });
  });
  afterAll(async () => {
    await own?.close();
  });

  it('answers only the bearer of the token there, and not at all on the API port', async () => {
    expect(own.handle.metricsUrl).not.toBe(`${own.handle.url}/metrics`);
    expect((await scrape(own)).status).toBe(403);
    expect((await scrape(own, { authorization: 'Bearer metrics-token-long-enough-2' })).status).toBe(403);
    const ok = await scrape(own, { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('federa_http_request_duration_seconds');
    expect((await fetch(`${own.handle.url}/metrics`)).status).toBe(404);
  });
});

describe('metrics turned off', () => {
  it('leave no endpoint', async () => {
    const off = await startTestServer({ config: { metrics: { enabled: false } } });
    try {
      expect(off.handle.metricsUrl).toBeNull();
      expect((await fetch(`${off.handle.url}/metrics`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
