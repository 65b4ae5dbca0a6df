/**
 * End to end, all real (server with its algorithm store, nodes in-process, Docker, Debian's docker-registry): a node
 * with a store-only policy (`allowed_algorithm_stores`, docs/store.md#node-administrators) runs the image its store
 * approved, pulled and run by digest, and refuses another digest of the same repository that was submitted but not
 * approved; the output checks take the function's declared output from that store (docs/output-control.md), so a
 * table of counts with a cell of 2 is refused although the node declares nothing itself; a node whose store cannot
 * be reached refuses to run rather than guess. The algorithm writes its input as its output. The nodes also tell the
server the column names of their CSV files (`GET /column`), unless their policy says not to.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import {
  createFederation,
  freePort,
  LocalRegistry,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  until,
  type E2eServer,
  type Federation,
  type StartedNode,
} from '@federa/testing';

const tag = `sn${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const ECHO = ['/bin/sh', '-c', 'cp "$INPUT_FILE" "$OUTPUT_FILE"; echo tabulated'];

let server: E2eServer;
let fed: Federation;
let registry: LocalRegistry;
/** Trusts the server's store, checks outputs (a minimum cell count of 3), declares nothing itself. */
let trusting: StartedNode;
/** Trusts a store that cannot be reached. */
let stranded: StartedNode;
let approved: { id: number; image: string };
let unapprovedImage: string;

interface RunView {
  status: string;
  result: string | null;
  log: string | null;
  finished_at: string | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many shapes
async function store(method: string, path: string, body?: unknown, token = server.rootToken): Promise<any> {
  const res = await fetch(`${server.url}/store/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const answer = (await res.json()) as unknown;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Pushes a new image `<repo>:<version>` and returns it pinned by the digest the registry gave it. */
async function pushed(version: string): Promise<string> {
  const ref = `${registry.repo}:${version}`;
  await registry.makeImage(ref, version, ECHO);
  await registry.push(ref);
  const digests = execFileSync('docker', ['image', 'inspect', '--format', '{{json .RepoDigests}}', ref], {
    encoding: 'utf8',
  });
  const digest = (JSON.parse(digests) as string[]).find((d) => d.startsWith(`${registry.repo}@`));
  if (!digest) throw new Error(`no digest for ${ref}: ${digests}`);
  // Removed here: the node pulls exactly the digest it is given.
  execFileSync('docker', ['rmi', '-f', ref, digest], { stdio: 'ignore' });
  return `${ref}@${digest.slice(digest.indexOf('@') + 1)}`;
}

const description = (image: string) => ({
  name: 'crosstab',
  description: 'A table of counts',
  image,
  partitioning: 'horizontal',
  vantage6_version: 'federa',
  code_url: 'https://example.org/crosstab',
  functions: [{ name: 'crosstab', type: 'federated', output: { kind: 'count_table', counts: 'table' } }],
});

beforeAll(async () => {
  registry = new LocalRegistry(`storenode-${tag}`);
  await registry.setUp();
  server = await startE2eServer('127.0.0.1');
  fed = await createFederation(server, false, tag, ['age\n11\n', 'age\n22\n']);

  const approvedImage = await pushed('1');
  unapprovedImage = await pushed('2');
  await store('PATCH', '/policy', { min_reviewers: 1, min_reviewing_organizations: 1 });
  const reviewer = await server.fx.user(fed.orgs[1]!.id);
  const entry = await store('POST', '/user', { username: reviewer.username, roles: ['reviewer'] });
  const made = await store('POST', '/algorithm', description(approvedImage));
  const review = await store('POST', '/review', { algorithm_id: made.id, reviewer_id: entry.id });
  const done = await store('POST', `/review/${review.id}/approve`, {}, await reviewer.token());
  expect(done.algorithm_status).toBe('approved');
  approved = { id: made.id as number, image: approvedImage };
  // The other digest is in the store too, but nobody approved it.
  await store('POST', '/algorithm', { ...description(unapprovedImage), name: 'crosstab-next' });

  trusting = await startE2eNode(
    server,
    fed.orgs[0]!,
    `${tag}-0`,
    false,
    `  share_logs: true
  policies:
    allowed_algorithm_stores: [${server.url}/store/api]
    output:
      formats: [json]
      checks: {min_cell_count: 3}
`,
  );
  stranded = await startE2eNode(
    server,
    fed.orgs[1]!,
    `${tag}-1`,
    false,
    `  share_logs: true
  policies:
    allowed_algorithm_stores: [http://127.0.0.1:${await freePort()}/store/api]
    share_column_names: false
`,
  );
}, 240_000);

afterAll(async () => {
  await trusting?.node.stop().catch(() => undefined);
  await stranded?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
  removeNodeObjects(`${tag}-1`);
  await registry?.tearDown();
}, 60_000);

/** A task at organization `org` with `input` (JSON); from the store algorithm, or with a bare image. */
async function finishedRun(
  org: number,
  input: Record<string, unknown>,
  how: { storeAlgorithmId: number } | { image: string },
): Promise<RunView> {
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'store node',
    collaboration_id: fed.collaborationId,
    organizations: [
      { id: fed.orgs[org]!.id, input: encodeBase64(Buffer.from(`json.${JSON.stringify(input)}`)) },
    ],
    ...('image' in how ? { image: how.image } : { store_algorithm_id: how.storeAlgorithmId }),
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const runs = await until(
    'the run is finished',
    async () => (await server.api<RunView[]>('GET', `/task/${posted.body.id}/result`)).body,
    (rs) => rs.length === 1 && rs[0]!.finished_at !== null,
    120_000,
    200,
  );
  return runs[0]!;
}

const outputOf = (r: RunView): unknown => {
  const plain = Buffer.from(r.result ?? '', 'base64').toString('utf8');
  expect(plain.startsWith('json.')).toBe(true);
  return JSON.parse(plain.slice(5));
};
// In a collaboration that is not encrypted, the run's log arrives as it is.
const logOf = (r: RunView): string => r.log ?? '';

describe('a node that runs only what its store approved', () => {
  it('runs the approved image by its digest, with the output checked as the store declares it', async () => {
    const table = { smokers: 31, others: 917 };
    const run = await finishedRun(0, { method: 'crosstab', table }, { storeAlgorithmId: approved.id });
    expect(run.status, logOf(run)).toBe('completed');
    expect(outputOf(run)).toEqual({ method: 'crosstab', master: false, table });
    expect(logOf(run)).toContain('tabulated');
  });

  it('refuses a table of counts with a cell of 2, by the declaration the store holds', async () => {
    const run = await finishedRun(
      0,
      { method: 'crosstab', table: { smokers: 2, others: 917 } },
      { storeAlgorithmId: approved.id },
    );
    expect(run.status).toBe('output refused');
    expect(run.result ?? '').toBe('');
    expect(logOf(run)).toContain(
      "this node's output policy refused the output: rule min_cell_count (threshold 3): 1 of 2 cells of 'table' count more than 0 and fewer than 3",
    );
    expect(logOf(run)).not.toContain('917');
  });

  it('refuses another digest of the same repository, submitted but not approved', async () => {
    const run = await finishedRun(0, { method: 'crosstab', table: { a: 5 } }, { image: unapprovedImage });
    expect(run.status).toBe('not allowed');
    expect(logOf(run)).toContain(
      `this node refuses the run: policy allowed_algorithm_stores: the image ${unapprovedImage} is not approved at this digest in ${server.url}/store/api`,
    );
    expect(logOf(run)).not.toContain('tabulated');
  });

  it('refuses to run, rather than guess, when its store cannot be reached', async () => {
    const run = await finishedRun(
      1,
      { method: 'crosstab', table: { a: 5 } },
      { storeAlgorithmId: approved.id },
    );
    expect(run.status).toBe('not allowed');
    expect(logOf(run)).toMatch(
      /this node refuses the run: policy allowed_algorithm_stores: no algorithm store could be reached to check .+ \(http:\/\/127\.0\.0\.1:\d+\/store\/api \(fetch failed\)\); this node runs only what its stores approved and does not guess/,
    );
    expect(logOf(run)).not.toContain('tabulated');
  });
});

describe('column names for the task form', () => {
  it("the server learns the names of a node's CSV columns, never a value; a node's policy keeps them", async () => {
    const columns = await until(
      'node 0 shared its column names',
      async () => (await server.api('GET', `/column?collaboration_id=${fed.collaborationId}`)).body,
      (b: { data?: unknown[] }) => (b.data?.length ?? 0) > 0,
      30_000,
      100,
    );
    expect(columns).toEqual({
      data: [{ name: 'age', organization_ids: [fed.orgs[0]!.id] }],
      database: 'default',
      not_shared: [fed.orgs[1]!.id],
    });
    expect(JSON.stringify(columns)).not.toContain('11');
  });
});
