/**
 * The UserClient's tasks and results against a real Federa server: the app and its socket.io server on a free
 * port, on a throwaway database. The test plays the node itself (fetch input, decrypt, PATCH the encrypted output).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RsaCryptor, generatePrivateKeyPem, writePrivateKeyFile } from '@federa/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  nodeCall,
  nodeTime,
  rootUserClient,
  startE2eServer,
  uniqueName as unique,
  type E2eServer,
} from '@federa/testing';
import { FederaClientError, TaskFailedError, WaitTimeoutError } from './errors.js';
import type { Result } from './types.js';

let t: E2eServer;
let port: number;
let dir: string;

beforeAll(async () => {
  t = await startE2eServer();
  port = t.port;
  dir = await mkdtemp(join(tmpdir(), 'federa-client-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A client of the test server, logged in as root; `messages` collects its log. */
const rootClient = () => rootUserClient(port);

/** Raw API call as a node (the test plays the node). */
const nodeApi = (token: string, method: string, path: string, body?: unknown) =>
  nodeCall(port, token, method, path, body);

/** A key pair on disk: the private key file path and the cryptor. */
async function keyPair(name: string): Promise<{ path: string; cryptor: RsaCryptor }> {
  const pem = await generatePrivateKeyPem({ modulusBits: 2048 });
  const path = join(dir, `${name}.pem`);
  await writePrivateKeyFile(path, pem);
  return { path, cryptor: new RsaCryptor(pem) };
}

describe('UserClient: tasks and results', () => {
  it('round-trips an encrypted task: input for the node, output for the initiator, woken by the socket', async () => {
    const { client } = await rootClient();
    const me = await client.user.me();
    const rootOrg = me.organization.id;
    const researcherKey = await keyPair('researcher');
    const stationKey = await keyPair('station');
    await client.organization.update(rootOrg, { publicKey: researcherKey.cryptor.publicKeyBase64 });
    const station = await client.organization.create({
      name: unique('station'),
      publicKey: stationKey.cryptor.publicKeyBase64,
    });
    const collab = await client.collaboration.create({
      name: unique('encrypted'),
      organizationIds: [rootOrg, station.id],
      encrypted: true,
    });
    const node = await client.node.create({ collaborationId: collab.id, organizationId: station.id });
    const login = await fetch(`http://127.0.0.1:${port}/api/token/node`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: node.api_key }),
    });
    const nodeToken = ((await login.json()) as { access_token: string }).access_token;

    await expect(
      client.task.create({ collaborationId: collab.id, organizations: [station.id], image: 'x', input: {} }),
    ).rejects.toThrow(/setupEncryption/);
    await client.setupEncryption(researcherKey.path);

    const input = { method: 'sum', args: [[1, 2, 3]], kwargs: {}, output_format: 'json' };
    const task = await client.task.create({
      collaborationId: collab.id,
      organizations: [station.id],
      name: 'sum',
      image: 'federa/sum:1',
      input,
    });
    expect(task.initiator).toBe(rootOrg);

    // The node's side: its open result holds the input encrypted for its organization.
    const open = await nodeApi(nodeToken, 'GET', `/result?state=open&task_id=${task.id}&node_id=${node.id}`);
    expect(open.status).toBe(200);
    const run = (open.body as Result[])[0]!;
    expect(run.input).toContain('$');
    expect(stationKey.cryptor.decryptStringToBytes(run.input!).toString('utf8')).toBe(
      `json.${JSON.stringify(input)}`,
    );

    const started = Date.now();
    const waiting = client.waitForResults(task.id, { intervalMs: 60_000, timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const output = stationKey.cryptor.encryptBytesToString(
      Buffer.from('json.{"sum":6}'),
      researcherKey.cryptor.publicKeyBase64,
    );
    const patched = await nodeApi(nodeToken, 'PATCH', `/result/${run.id}`, {
      started_at: nodeTime(),
      finished_at: nodeTime(),
      result: output,
      log: 'summed',
      status: 'completed',
    });
    expect(patched.status).toBe(200);

    const results = await waiting;
    // Polling alone would not look again for 5 minutes: the socket event woke the wait.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: run.id, result: { sum: 6 }, log: 'summed' });
    expect((await client.result.get(run.id)).result).toEqual({ sum: 6 });
    expect((await client.result.list({ taskId: task.id }))[0]?.result).toEqual({ sum: 6 });
    expect((await client.task.results(task.id))[0]?.result).toEqual({ sum: 6 });

    // Without the key, encrypted outputs cannot be read and encrypted tasks cannot be created.
    await client.setupEncryption(null);
    await expect(client.result.get(run.id)).rejects.toThrow(/setupEncryption/);
    expect((await client.task.results(task.id))[0]?.decryptionError).toMatch(/encrypted/);
    await expect(
      client.task.create({ collaborationId: collab.id, organizations: [station.id], image: 'x', input: {} }),
    ).rejects.toThrow(FederaClientError);
  });

  it('refuses to encrypt for an organization without a public key', async () => {
    const { client } = await rootClient();
    const rootOrg = (await client.user.me()).organization.id;
    const key = await keyPair('researcher-2');
    await client.organization.update(rootOrg, { publicKey: key.cryptor.publicKeyBase64 });
    const keyless = await client.organization.create({ name: unique('keyless') });
    const collab = await client.collaboration.create({
      name: unique('enc'),
      organizationIds: [rootOrg, keyless.id],
      encrypted: true,
    });
    await client.node.create({ collaborationId: collab.id, organizationId: keyless.id });
    await client.setupEncryption(key.path);
    const error = await client.task
      .create({ collaborationId: collab.id, organizations: [keyless.id], image: 'x', input: [1] })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe('EncryptionError');
    expect((error as Error).message).toContain(`organization ${keyless.id}`);
  });

  it('names an organization outside the collaboration as such, not as one without a key', async () => {
    const { client } = await rootClient();
    const rootOrg = (await client.user.me()).organization.id;
    const outsider = await client.organization.create({ name: unique('outsider') });
    const collab = await client.collaboration.create({
      name: unique('enc'),
      organizationIds: [rootOrg],
      encrypted: true,
    });
    const error = await client.task
      .create({ collaborationId: collab.id, organizations: [outsider.id], image: 'x', input: [1] })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      new RegExp(`Organization\\(s\\) ${outsider.id} are not in the collaboration ${collab.id}`),
    );
    expect((error as Error).message).not.toMatch(/public key/);
  });

  it('needs no key in an unencrypted collaboration, polls when asked to, and keeps non-JSON outputs as bytes', async () => {
    const { client } = await rootClient();
    const rootOrg = (await client.user.me()).organization.id;
    const other = await client.organization.create({ name: unique('plain') });
    const collab = await client.collaboration.create({
      name: unique('plain'),
      organizationIds: [rootOrg, other.id],
    });
    const node = await t.fx.node(other.id, collab.id);
    // No setupEncryption: an unencrypted collaboration needs no key.
    const task = await client.task.create({
      collaborationId: collab.id,
      organizations: [other.id],
      image: 'federa/echo:1',
      input: Buffer.from('raw input bytes'),
    });
    const token = await node.token();
    const [run] = (await nodeApi(token, 'GET', `/result?task_id=${task.id}`)).body as Result[];
    expect(Buffer.from(run!.input!, 'base64').toString()).toBe('raw input bytes');

    await expect(
      client.waitForResults(task.id, { useSocket: false, intervalMs: 20, timeoutMs: 200 }),
    ).rejects.toBeInstanceOf(WaitTimeoutError);
    const waiting = client.waitForResults(task.id, { useSocket: false, intervalMs: 50, timeoutMs: 10_000 });
    const pickle = Buffer.from([0x80, 0x04, 0x4b, 0x06, 0x2e]);
    await nodeApi(token, 'PATCH', `/result/${run!.id}`, {
      finished_at: nodeTime(),
      result: pickle.toString('base64'),
      status: 'completed',
    });
    const [result] = await waiting;
    expect(Buffer.isBuffer(result?.result)).toBe(true);
    expect([...(result?.result as Buffer)]).toEqual([...pickle]);
  });

  it('rejects a wait whose runs crashed, naming each failed run, its status and log tail; keeps every result', async () => {
    const { client } = await rootClient();
    const rootOrg = (await client.user.me()).organization.id;
    const good = await client.organization.create({ name: unique('good') });
    const bad = await client.organization.create({ name: unique('bad') });
    const collab = await client.collaboration.create({
      name: unique('crash'),
      organizationIds: [rootOrg, good.id, bad.id],
    });
    const goodNode = await t.fx.node(good.id, collab.id);
    const badNode = await t.fx.node(bad.id, collab.id);
    const task = await client.task.create({
      collaborationId: collab.id,
      organizations: [good.id, bad.id],
      image: 'federa/echo:1',
      input: { method: 'x' },
    });
    for (const [node, output, status, log] of [
      [goodNode, 'json.{"sum":6}', 'completed', 'fine'],
      [badNode, '', 'crashed', `${'noise\n'.repeat(400)}Traceback\nZeroDivisionError: division by zero`],
    ] as const) {
      const token = await node.token();
      const [run] = (await nodeApi(token, 'GET', `/result?task_id=${task.id}&node_id=${node.id}`))
        .body as Result[];
      const patched = await nodeApi(token, 'PATCH', `/result/${run!.id}`, {
        started_at: nodeTime(),
        finished_at: nodeTime(),
        result: Buffer.from(output).toString('base64'),
        log,
        status,
      });
      expect(patched.status).toBe(200);
    }
    const error = await client
      .waitForResults(task.id, { useSocket: false, intervalMs: 20, timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskFailedError);
    const failed = error as TaskFailedError;
    expect(failed.message).toMatch(
      new RegExp(
        `^Task ${task.id} did not succeed: 1 of 2 run\\(s\\) failed\\nrun \\d+ \\(organization ${bad.id}\\): crashed; log tail:`,
      ),
    );
    expect(failed.message.endsWith('ZeroDivisionError: division by zero')).toBe(true);
    expect(failed.message.length).toBeLessThan(2000);
    expect(failed.failed).toEqual([expect.objectContaining({ organizationId: bad.id, status: 'crashed' })]);
    const byOrg = new Map(
      (failed.results as { organizationId: number; result: unknown }[]).map((r) => [
        r.organizationId,
        r.result,
      ]),
    );
    expect(byOrg.get(good.id)).toEqual({ sum: 6 });
    expect(byOrg.get(bad.id)).toBeNull();
  });
});
