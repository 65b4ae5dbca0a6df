/**
 * End to end, all real, through the vantage6 4.x surface: a 4.x user's calls (POST /v4/api/task with `databases`,
 * GET /task/{id}/status until done, GET /result?task_id=), two Federa nodes in-process, and an algorithm image in
 * Docker shaped like vantage6 4.x's average template (algorithms/average-v4), whose central function lists the
 * organizations, creates its partial tasks and reads their results through the node proxy's 4.x answers. Plain and
 * encrypted; the average equals the one computed from the data directly. Needs Docker and the images of
 * scripts/build-images.sh and scripts/build-algorithms.sh (built here when missing or outdated).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RsaCryptor, encodeBase64 } from '@federa/common';

import {
  createFederation,
  type E2eServer,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '..');
const IMAGE = 'federa/average-v4:local';
const CSV_A = 'age,weight\n30,70\n40,80\n50,\n';
const CSV_B = 'age,weight\n20,60\n25,65\n35,75\n45,85\n';
const ages = (csv: string): number[] =>
  csv
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => Number(l.split(',')[0]));
const ALL = [...ages(CSV_A), ...ages(CSV_B)];
const EXPECTED = ALL.reduce((a, b) => a + b, 0) / ALL.length;

const tag = `v4e${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
const nodes: StartedNode[] = [];

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  server = await startE2eServer();
}, 120_000);

afterAll(async () => {
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of nodes) removeNodeObjects(n.name);
}, 60_000);

/** A call to the 4.x surface, as the 4.x client makes it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function v4(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}/v4/api${path}`, {
    method,
    headers: {
      authorization: `Bearer ${server.rootToken}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Every item of a 4.x listing, page by page as the 4.x client reads them. */
async function allPages(path: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const r = await v4('GET', `${path}${path.includes('?') ? '&' : '?'}page=${page}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    items.push(...(r.body.data as Record<string, unknown>[]));
    if (!r.body.links.next) return items;
  }
}

async function averageThrough4x(encrypted: boolean, suffix: string) {
  const fed = await createFederation(server, encrypted, `${tag}${suffix}`, [CSV_A, CSV_B]);
  const started = await Promise.all(
    fed.orgs.map((org, i) => startE2eNode(server, org, `${tag}${suffix}-${i}`, encrypted)),
  );
  nodes.push(...started);
  const org = fed.orgs[0]!.id;
  const key = join(started[0]!.dataDir, 'private_key.pem');
  const input = Buffer.from(JSON.stringify({ method: 'central_average', kwargs: { column: 'age' } }));
  const organization = (await v4('GET', `/organization/${org}`)).body;
  const payload = encrypted
    ? new RsaCryptor(readFileSync(key, 'utf8')).encryptBytesToString(input, organization.public_key)
    : encodeBase64(input);
  const posted = await v4('POST', '/task', {
    name: 'average',
    description: 'federated average of age',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [{ id: org, input: payload }],
    databases: [{ label: 'default' }],
    study_id: null,
    store_id: null,
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const taskId = posted.body.id as number;
  await until(
    'task done',
    async () => (await v4('GET', `/task/${taskId}/status`)).body.status as string,
    (s) => !['pending', 'initializing', 'active'].includes(s),
    90_000,
    250,
  );
  const runs = await allPages(`/run?task_id=${taskId}`);
  expect(
    runs.map((r) => r.status),
    String(runs[0]?.log),
  ).toEqual(['completed']);
  const results = await allPages(`/result?task_id=${taskId}`);
  expect(results).toHaveLength(1);
  const text = results[0]!.result as string;
  const plain = encrypted
    ? (await RsaCryptor.fromFile(key)).decryptStringToBytes(text)
    : Buffer.from(text, 'base64');
  const children = await allPages(`/task?parent_id=${taskId}`);
  return { out: JSON.parse(Buffer.from(plain).toString('utf8')), text, children, job: posted.body.job_id };
}

describe('a vantage6 4.x average algorithm on Federa nodes, through the 4.x surface', () => {
  it('unencrypted collaboration: central and partial functions give the average of the data', async () => {
    const { out, children, job } = await averageThrough4x(false, 'plain');
    expect(out).toEqual({ average: expect.any(Number), count: ALL.length, organizations: 2 });
    expect(out.average).toBeCloseTo(EXPECTED, 10);
    // The partial task was made through the node's 4.x proxy: one child, in the same job, on the same database.
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({ job_id: job, databases: [{ label: 'default', parameters: '{}' }] });
  }, 150_000);

  it('encrypted collaboration: inputs and results sealed per organization, the average still right', async () => {
    const { out, text, children } = await averageThrough4x(true, 'enc');
    expect(text.split('$')).toHaveLength(3);
    expect(out.count).toBe(ALL.length);
    expect(out.average).toBeCloseTo(EXPECTED, 10);
    const partials = await allPages(`/result?task_id=${children[0]!.id as number}`);
    expect(partials).toHaveLength(2);
    expect(partials.every((p) => String(p.result).split('$').length === 3)).toBe(true);
  }, 150_000);
});
