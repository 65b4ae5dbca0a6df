/**
 * One trace per task, end to end and all real (docs/observability.md#traces): a researcher's TypeScript client
 * posts a federated average to a server and two in-process nodes running the algorithm in Docker, both sending
 * their spans by OTLP/HTTP to a small receiver in this test. The receiver gets one trace from the post to the
 * researcher's read: the master's run, its container's start, the algorithm's calls through the proxy with the
 * sub-task inside (its runs on both nodes), the reports, and no task content in any span. Needs Docker and the
 * algorithm images (scripts/build-algorithms.sh).
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACE_ATTRIBUTE_NAMES } from '@federa/common';
import {
  createFederation,
  removeNodeObjects,
  ROOT_PASSWORD,
  startE2eNode,
  startE2eServer,
  until,
  type E2eServer,
  type Federation,
  type StartedNode,
} from '@federa/testing';
import { UserClient } from './user-client.js';

const ROOT = join(import.meta.dirname, '../../..');
const tag = `otel${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

/** A span as the receiver read it from OTLP/JSON. */
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttributes };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttributes;
      }[];
    }[];
  }[];
}

const attributesOf = (list: OtlpAttributes): Record<string, string | number | boolean> =>
  Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.boolValue ??
        value.doubleValue ??
        '',
    ]),
  );

const received: ReceivedSpan[] = [];
const refused: string[] = [];
let receiver: Server;
let endpoint: string;
let server: E2eServer;
let fed: Federation;
const nodes: StartedNode[] = [];

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  // The collector: OTLP/HTTP with JSON bodies on /v1/traces, as the OpenTelemetry Collector takes them.
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !req.headers['content-type']?.includes('json')
      ) {
        refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name']);
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            received.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              attributes: attributesOf(s.attributes),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;

  server = await startE2eServer('127.0.0.1', { config: { tracing: { endpoint, interval_ms: 200 } } });
  fed = await createFederation(server, false, tag, ['age\n30\n40\n', 'age\n20\n']);
  for (const [i, org] of fed.orgs.entries())
    nodes.push(
      await startE2eNode(
        server,
        org,
        `${tag}-${i}`,
        false,
        `  tracing: {endpoint: '${endpoint}', interval_ms: 200}\n`,
      ),
    );
}, 180_000);

afterAll(async () => {
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of nodes) removeNodeObjects(n.name);
  await new Promise((resolve) => receiver?.close(resolve));
}, 60_000);

describe('a task traced from the researcher to the nodes and back', () => {
  it('is one trace, with the container’s sub-task inside and no content in any span', async () => {
    const client = new UserClient({
      host: 'http://127.0.0.1',
      port: server.port,
      apiPath: '/api',
      warn: () => undefined,
    });
    await client.authenticate('root', ROOT_PASSWORD);
    const task = await client.task.create({
      collaborationId: fed.collaborationId,
      organizations: [fed.orgs[0]!.id],
      name: 'traced-average',
      image: 'federa/average-ts:local',
      database: 'default',
      input: { method: 'central_average', args: ['age'], kwargs: {}, master: true, output_format: 'json' },
    });
    const results = await client.waitForResults(task.id, { timeoutMs: 90_000 });
    expect(results.map((r) => r.status)).toEqual(['completed']);
    const traceId = task.traceparent!.split('-')[1]!;

    const inTrace = (): ReceivedSpan[] => received.filter((s) => s.traceId === traceId);
    // The runs' spans end after their reports have been answered: the last of the task's spans to arrive.
    await until(
      'the spans of the three runs and of the researcher’s read to arrive',
      () => {
        const names = inTrace().map((s) => s.name);
        return Math.min(
          names.filter((n) => n === 'run').length,
          names.includes('GET /api/task/:id/result') ? 3 : 0,
        );
      },
      (n) => n >= 3,
      20_000,
      200,
    );
    const spans = inTrace();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const childrenOf = (span: ReceivedSpan, name: string): ReceivedSpan[] =>
      spans.filter((s) => s.parentSpanId === span.spanId && s.name === name);
    const one = (list: ReceivedSpan[], what: string): ReceivedSpan => {
      expect(list.length, `${what}: ${list.length} spans`).toBe(1);
      return list[0]!;
    };

    // The researcher's post, its new_task, and the node that fetched and ran it.
    const posts = spans.filter((s) => s.name === 'POST /api/task');
    const post = one(
      posts.filter((s) => s.attributes['federa.task.id'] === task.id),
      'the post',
    );
    expect(post.service).toBe('federa-server');
    expect(task.traceparent).toBe(`00-${traceId}-${post.spanId}-01`);
    expect(byId.has(post.parentSpanId)).toBe(false); // the client's own span, which it does not send
    one(childrenOf(post, 'new_task'), 'new_task');
    one(childrenOf(post, 'fetch task'), 'the fetch');
    const master = one(childrenOf(post, 'run'), 'the master run');
    expect(master.service).toBe('federa-node');
    expect(master.attributes['federa.task.id']).toBe(task.id);
    expect(master.attributes['federa.run.status']).toBe('completed');
    one(childrenOf(master, 'container start'), 'the container start');

    // The algorithm's sub-task: its call through the proxy, the server's post, and its runs on both nodes.
    const proxied = one(childrenOf(master, 'proxy POST /task'), 'the proxied post');
    const subPost = one(childrenOf(proxied, 'POST /api/task'), 'the sub-task post');
    expect(subPost.attributes['federa.parent_task.id']).toBe(task.id);
    const subRuns = childrenOf(subPost, 'run');
    expect(subRuns.map((r) => r.attributes['federa.parent_task.id'])).toEqual([task.id, task.id]);
    expect(
      spans.filter((s) => s.parentSpanId === master.spanId && s.name.startsWith('proxy GET')).length,
    ).toBeGreaterThan(0);

    // Each run's report reaches the server in the same trace.
    for (const run of [master, ...subRuns]) {
      const report = one(childrenOf(run, 'report'), `the report of task ${run.attributes['federa.task.id']}`);
      expect(childrenOf(report, 'PATCH /api/result/:id').length).toBeGreaterThan(0);
    }

    // The researcher's read of the results, beside the post.
    const reads = spans.filter(
      (s) => s.name === 'GET /api/task/:id/result' && s.parentSpanId === post.parentSpanId,
    );
    expect(reads.length).toBeGreaterThan(0);

    // No content: only the listed attributes, and neither the input, the output nor the task's name.
    const allowed = new Set<string>(TRACE_ATTRIBUTE_NAMES);
    const inputText = JSON.stringify(['age']);
    for (const s of spans) {
      for (const key of Object.keys(s.attributes)) expect(allowed.has(key), `${s.name}: ${key}`).toBe(true);
      const text = JSON.stringify(s);
      for (const secret of [
        'central_average',
        'traced-average',
        inputText,
        JSON.stringify(results[0]!.result),
      ])
        expect(text.includes(secret), `${s.name} holds ${secret}`).toBe(false);
    }
    expect(refused).toEqual([]);
  });
});
