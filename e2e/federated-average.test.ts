/**
 * End to end, all real: the server, two nodes in-process, algorithms in Docker. Needs Docker and the images of
 * scripts/build-images.sh and scripts/build-algorithms.sh (built here when missing or outdated).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RsaCryptor, encodeBase64 } from '@federa/common';

import {
  buildImage,
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
const CSV_A = 'age,weight\n30,70\n40,80\n50,\n';
const CSV_B = 'age,weight\n20,60\n25,65\n35,75\n45,85\n';
const ages = (csv: string): number[] =>
  csv
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => Number(l.split(',')[0]));
const EXPECTED =
  [...ages(CSV_A), ...ages(CSV_B)].reduce((a, b) => a + b, 0) / (ages(CSV_A).length + ages(CSV_B).length);

const tag = `e2e${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const FAIL_IMAGE = `federa-test/${tag}-fail:local`;
const PROBE_IMAGE = `federa-test/${tag}-probe:local`;

let server: E2eServer;
const nodes: StartedNode[] = [];

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  buildImage(
    FAIL_IMAGE,
    'FROM federa/helper:local\nCMD ["/bin/sh", "-c", "echo starting the analysis; echo something went wrong >&2; exit 1"]\n',
  );
  buildImage(
    PROBE_IMAGE,
    'FROM federa/base-python:local\nCOPY probe.py /probe.py\nCMD ["python3", "/probe.py"]\n',
    { 'probe.py': readFileSync(join(import.meta.dirname, 'probe.py'), 'utf8') },
  );
  server = await startE2eServer();
}, 120_000);

afterAll(async () => {
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of nodes) removeNodeObjects(n.name);
  for (const image of [FAIL_IMAGE, PROBE_IMAGE]) {
    try {
      execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
    } catch {
      /* gone already */
    }
  }
}, 60_000);

async function federation(
  encrypted: boolean,
  suffix: string,
): Promise<{ fed: Federation; a: StartedNode; b: StartedNode }> {
  const fed = await createFederation(server, encrypted, `${tag}${suffix}`, [CSV_A, CSV_B]);
  const [a, b] = await Promise.all(
    fed.orgs.map((org, i) => startE2eNode(server, org, `${tag}${suffix}-${i}`, encrypted)),
  );
  nodes.push(a!, b!);
  return { fed, a: a!, b: b! };
}

interface ResultView {
  id: number;
  status: string;
  result: string | null;
  log: string | null;
  organization: number | { id: number };
}

/** Posts a task as the root user (organization `org`), waits until it is complete and returns its results. */
async function runTask(
  fed: Federation,
  org: number,
  image: string,
  input: Uint8Array,
  encryptFor?: string,
): Promise<{ taskId: number; results: ResultView[] }> {
  const payload =
    encryptFor !== undefined
      ? new RsaCryptor(encryptFor).encryptBytesToString(
          input,
          (await server.api('GET', `/organization/${org}`)).body.public_key,
        )
      : encodeBase64(input);
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'e2e',
    image,
    collaboration_id: fed.collaborationId,
    database: 'default',
    organizations: [{ id: org, input: payload }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const taskId = posted.body.id;
  await until(
    'task complete',
    async () => (await server.api<{ complete: boolean }>('GET', `/task/${taskId}`)).body,
    (t) => t.complete === true,
    90_000,
    200,
  );
  const results = (await server.api<ResultView[]>('GET', `/task/${taskId}/result`)).body;
  return { taskId, results };
}

const jsonInput = (value: unknown): Buffer => Buffer.from(`json.${JSON.stringify(value)}`);
const decodeJsonOutput = (bytes: Buffer): unknown => {
  expect(bytes.subarray(0, 5).toString()).toBe('json.');
  return JSON.parse(bytes.subarray(5).toString());
};

describe('federated average, end to end', () => {
  it('encrypted collaboration: the master sub-tasks both organizations and the decrypted average is right (Python)', async () => {
    const { fed, a } = await federation(true, 'enc');
    const orgA = fed.orgs[0]!.id;
    const keyPem = join(a.dataDir, 'private_key.pem');
    const researcher = await RsaCryptor.fromFile(keyPem);
    // The node uploaded its public key at start.
    expect((await server.api('GET', `/organization/${orgA}`)).body.public_key).toBe(
      researcher.publicKeyBase64,
    );

    const { taskId, results } = await runTask(
      fed,
      orgA,
      'federa/average-python:local',
      jsonInput({
        method: 'central_average',
        args: ['age'],
        kwargs: {},
        master: true,
        output_format: 'json',
      }),
      readFileSync(keyPem, 'utf8'),
    );
    expect(results).toHaveLength(1);
    const r = results[0]!;
    expect(r.status, r.log ?? '').toBe('completed');
    expect(r.result!.split('$')).toHaveLength(3);
    const out = decodeJsonOutput(researcher.decryptStringToBytes(r.result!)) as {
      average: number;
      count: number;
      organizations: number;
    };
    expect(out.organizations).toBe(2);
    expect(out.count).toBe(7);
    expect(out.average).toBeCloseTo(EXPECTED, 10);

    // The sub-task ran at both organizations with the master's run id and parent.
    const task = (await server.api('GET', `/task/${taskId}`)).body;
    const children = (
      await server.api<{ id: number; run_id: number; parent: { id: number } }[]>(
        'GET',
        `/task?parent_id=${taskId}`,
      )
    ).body;
    const child = (Array.isArray(children) ? children : (children as { data: never[] }).data).find(
      (t: { parent: { id: number } | null }) => t.parent?.id === taskId,
    );
    expect(child?.run_id).toBe(task.run_id);
    const sub = (await server.api<ResultView[]>('GET', `/task/${child!.id}/result`)).body;
    expect(sub.map((x) => x.status).sort()).toEqual(['completed', 'completed']);
    expect(sub.every((x) => x.result!.includes('$'))).toBe(true);
  }, 150_000);

  it('unencrypted collaboration: the same with the TypeScript algorithm; results are plain base64', async () => {
    const { fed } = await federation(false, 'plain');
    const orgA = fed.orgs[0]!.id;
    const { results } = await runTask(
      fed,
      orgA,
      'federa/average-ts:local',
      jsonInput({
        method: 'central_average',
        args: ['age'],
        kwargs: {},
        master: true,
        output_format: 'json',
      }),
    );
    const r = results[0]!;
    expect(r.status, r.log ?? '').toBe('completed');
    const out = decodeJsonOutput(Buffer.from(r.result!, 'base64')) as { average: number; count: number };
    expect(out.count).toBe(7);
    expect(out.average).toBeCloseTo(EXPECTED, 10);
    expect(r.log).toContain('calling central_average');

    // Failures end as reported runs with a readable log.
    const crashed = await runTask(fed, orgA, FAIL_IMAGE, jsonInput({ method: 'x' }));
    expect(crashed.results[0]!.status).toBe('crashed');
    expect(crashed.results[0]!.log).toContain('something went wrong');
    expect(crashed.results[0]!.log).toMatch(/exited with code 1/);

    const missing = await runTask(
      fed,
      orgA,
      `federa-test/${tag}-does-not-exist:local`,
      jsonInput({ method: 'x' }),
    );
    expect(missing.results[0]!.status).toBe('non-existing Docker image');
    expect(missing.results[0]!.log).toMatch(/does not exist on this node/);

    const unknownMethod = await runTask(
      fed,
      orgA,
      'federa/average-python:local',
      jsonInput({ method: 'nope', args: [] }),
    );
    expect(unknownMethod.results[0]!.status).toBe('crashed');
    expect(unknownMethod.results[0]!.log).toContain("no function 'RPC_nope'");
  }, 150_000);

  it('a container on the private network reaches the proxy and nothing else of the host', async () => {
    const { fed, a } = await federation(false, 'net');
    const gateway = a.node.proxy.host;
    const servers: Server[] = [];
    const listen = async (host: string): Promise<number> => {
      const s = createServer((c) => c.end('hello\n'));
      servers.push(s);
      await new Promise<void>((r) => s.listen(0, host, r));
      return (s.address() as { port: number }).port;
    };
    try {
      const loopbackPort = await listen('127.0.0.1');
      const bridgePort = await listen('172.17.0.1');
      const gatewayPort = await listen(gateway);
      const orgA = fed.orgs[0]!.id;
      const { taskId, results } = await runTask(
        fed,
        orgA,
        PROBE_IMAGE,
        jsonInput({
          targets: {
            loopback_via_gateway: [gateway, loopbackPort],
            docker0_address: ['172.17.0.1', bridgePort],
            gateway_other_port: [gateway, gatewayPort],
            server: [gateway, server.port],
          },
        }),
      );
      expect(taskId).toBeGreaterThan(0);
      const r = results[0]!;
      expect(r.status, r.log ?? '').toBe('completed');
      const out = decodeJsonOutput(Buffer.from(r.result!, 'base64')) as Record<string, unknown>;
      expect(out.loopback_via_gateway).not.toBe('reached');
      expect(out.docker0_address).not.toBe('reached');
      expect(out.gateway_other_port).not.toBe('reached');
      expect(out.server).not.toBe('reached');
      expect(out.proxy).toBe(true);
      expect(out.env).toEqual({
        HOST: 'http://host.docker.internal',
        DATABASE_URI: '/mnt/data/data-0.csv',
        USER_REQUESTED_DATABASE_LABEL: 'default',
        DB_LABELS: '["default"]',
        TEMPORARY_FOLDER: '/mnt/tmp',
      });
    } finally {
      for (const s of servers) s.close();
    }
  }, 120_000);
});
