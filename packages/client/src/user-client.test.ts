/**
 * The UserClient against a real Federa server: the app and its socket.io server listening on a free port,
 * on a throwaway database. The test plays the node itself (fetch input, decrypt, PATCH the encrypted output).
 */
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RsaCryptor, generatePrivateKeyPem, writePrivateKeyFile } from '@federa/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ROOT_PASSWORD, startE2eServer, type E2eServer } from '@federa/testing';
import {
  AuthenticationError,
  ConnectionError,
  FederaClientError,
  NotFoundError,
  PermissionError,
  TaskFailedError,
  ValidationError,
  WaitTimeoutError,
} from './errors.js';
import type { Result } from './types.js';
import { UserClient } from './user-client.js';

let t: E2eServer;
let server: E2eServer;
let port: number;
let dir: string;
const unique = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 7)}`;

beforeAll(async () => {
  server = await startE2eServer();
  t = server;
  port = server.port;
  dir = await mkdtemp(join(tmpdir(), 'federa-client-'));
});

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A client of the test server, logged in as root; `messages` collects its log. */
async function rootClient(options: { refreshMarginSeconds?: number } = {}) {
  const messages: string[] = [];
  const client = new UserClient({
    host: 'http://127.0.0.1',
    port,
    apiPath: '/api',
    log: (m) => messages.push(m),
    ...options,
  });
  await client.authenticate('root', ROOT_PASSWORD);
  return { client, messages };
}

/** Raw API call as a node (the test plays the node). */
async function nodeApi(
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** `YYYY-MM-DDTHH:MM:SS.ffffff` as nodes send it. */
const nodeTime = (): string => `${new Date().toISOString().slice(0, 23)}000`;

/** A key pair on disk: the private key file path and the cryptor. */
async function keyPair(name: string): Promise<{ path: string; cryptor: RsaCryptor }> {
  const pem = await generatePrivateKeyPem({ modulusBits: 2048 });
  const path = join(dir, `${name}.pem`);
  await writePrivateKeyFile(path, pem);
  return { path, cryptor: new RsaCryptor(pem) };
}

describe('UserClient: logging in', () => {
  it('logs in without logging the password, and knows who it is', async () => {
    const { client, messages } = await rootClient();
    const me = await client.user.me();
    expect(me.username).toBe('root');
    expect(client.userId).toBe(me.id);
    expect(messages.join('\n')).not.toContain(ROOT_PASSWORD);
    expect(messages.some((m) => m.includes('Logged in as "root"'))).toBe(true);
  });

  it('refuses a wrong password with an AuthenticationError', async () => {
    const client = new UserClient({ host: 'http://127.0.0.1', port });
    const error = await client.authenticate('root', 'not-the-password').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401 });
    expect((error as Error).message).toMatch(/Login of "root" failed/);
    expect((error as Error).message).not.toContain('not-the-password');
  });

  it('refuses requests before login', async () => {
    const client = new UserClient({ host: 'http://127.0.0.1', port });
    await expect(client.organization.list()).rejects.toThrow(/call authenticate/);
  });

  it('names host and port when nothing listens', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const freePort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const client = new UserClient({ host: 'http://127.0.0.1', port: freePort });
    const error = await client.authenticate('root', ROOT_PASSWORD).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ host: 'http://127.0.0.1', port: freePort });
    expect((error as Error).message).toContain(`http://127.0.0.1:${freePort}`);
  });

  it('refreshes an expired access token after a 401, transparently', async () => {
    const lifetimes = t.ctx.tokens.lifetimes;
    const normal = lifetimes.accessSeconds;
    lifetimes.accessSeconds = -60;
    let session;
    try {
      session = await rootClient({ refreshMarginSeconds: -1 });
    } finally {
      lifetimes.accessSeconds = normal;
    }
    const orgs = await session.client.organization.list();
    expect(orgs.length).toBeGreaterThan(0);
    expect(session.messages).toContain('Refreshed the access token.');
  });

  it('refreshes an access token about to expire before using it', async () => {
    const lifetimes = t.ctx.tokens.lifetimes;
    const normal = lifetimes.accessSeconds;
    lifetimes.accessSeconds = 30;
    let session;
    try {
      session = await rootClient();
    } finally {
      lifetimes.accessSeconds = normal;
    }
    await session.client.user.me();
    expect(session.messages.filter((m) => m === 'Refreshed the access token.')).toHaveLength(1);
  });

  it('follows refresh-token rotation: every refresh uses the successor the server answered with', async () => {
    const lifetimes = t.ctx.tokens.lifetimes;
    const normal = lifetimes.accessSeconds;
    // Every access token is about to expire, so every request refreshes first.
    lifetimes.accessSeconds = 30;
    try {
      const session = await rootClient();
      for (let i = 0; i < 3; i++) await session.client.user.me();
      expect(
        session.messages.filter((m) => m === 'Refreshed the access token.').length,
      ).toBeGreaterThanOrEqual(3);
    } finally {
      lifetimes.accessSeconds = normal;
    }
  });

  it('gives up with an AuthenticationError when the refresh token has expired too', async () => {
    const lifetimes = t.ctx.tokens.lifetimes;
    const normal = { ...lifetimes };
    lifetimes.accessSeconds = -60;
    lifetimes.refreshSeconds = -60;
    // By default the login's refresh token lives as long as its session (vantage6 3.3-3.7 clients keep it);
    // without that allowance it expires with the refresh lifetime, as this case needs.
    const config = t.ctx.config as { legacy_refresh_reuse: boolean };
    config.legacy_refresh_reuse = false;
    let session;
    try {
      session = await rootClient({ refreshMarginSeconds: -1 });
    } finally {
      Object.assign(lifetimes, normal);
      config.legacy_refresh_reuse = true;
    }
    const error = await session.client.organization.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toMatch(/Log in again/);
  });
});

describe('UserClient: managing resources', () => {
  it('creates 25 organizations and reads them back 10 per page', async () => {
    const { client } = await rootClient();
    const prefix = unique('paging');
    for (let i = 0; i < 25; i++) await client.organization.create({ name: `${prefix}-${i}`, country: 'NL' });
    const all = await client.organization.list({ name: `${prefix}-%` }, { perPage: 10 });
    expect(all).toHaveLength(25);
    expect(new Set(all.map((o) => o.name)).size).toBe(25);
    const third = await client.organization.listPage({ name: `${prefix}-%` }, { page: 3, perPage: 10 });
    expect(third).toMatchObject({ total: 25, page: 3, perPage: 10 });
    expect(third.items).toHaveLength(5);
    expect(await client.organization.list({ name: `${prefix}-%` }, { page: 2, perPage: 10 })).toHaveLength(
      10,
    );

    const first = all[0]!;
    const updated = await client.organization.update(first.id, { domain: 'example.org' });
    expect(updated.domain).toBe('example.org');
    expect((await client.organization.get(first.id)).domain).toBe('example.org');
  });

  it('creates a collaboration, a node, a role and a user', async () => {
    const { client } = await rootClient();
    const a = await client.organization.create({ name: unique('org-a') });
    const b = await client.organization.create({ name: unique('org-b') });
    const collab = await client.collaboration.create({
      name: unique('collab'),
      organizationIds: [a.id, b.id],
    });
    expect(collab.encrypted).toBe(false);
    expect((await client.collaboration.organizations(collab.id)).map((o) => o.id).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    expect((await client.collaboration.list({ organizationId: a.id })).map((c) => c.id)).toEqual([collab.id]);

    const node = await client.node.create({ collaborationId: collab.id, organizationId: a.id });
    expect(node.api_key).toMatch(/[0-9a-f-]{36}/);
    expect((await client.node.list({ collaborationId: collab.id })).map((n) => n.id)).toEqual([node.id]);
    expect((await client.node.update(node.id, { name: 'renamed-node' })).name).toBe('renamed-node');

    const rule = await client.rule.find('organization', 'VIEW', 'ORGANIZATION');
    expect(rule).toBeDefined();
    const role = await client.role.create({
      name: unique('viewer'),
      description: 'sees its organization',
      rules: [rule!.id],
      organizationId: a.id,
    });
    expect((await client.role.rules(role.id)).map((r) => r.id)).toEqual([rule!.id]);

    const username = unique('alice');
    const password = 'Alice-Password-1!';
    const user = await client.user.create({
      username,
      firstname: 'Alice',
      lastname: 'Example',
      email: `${username}@example.org`,
      password,
      organizationId: a.id,
      roles: [role.id],
    });
    expect(user.organization.id).toBe(a.id);
    expect((await client.user.list({ organizationId: a.id })).map((u) => u.username)).toEqual([username]);
    expect((await client.user.update(user.id, { firstname: 'Alicia' })).firstname).toBe('Alicia');

    const alice = new UserClient({ host: 'http://127.0.0.1', port });
    await alice.authenticate(username, password);
    expect((await alice.organization.list()).map((o) => o.id)).toEqual([a.id]);
    const refused = await alice.organization.create({ name: unique('nope') }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PermissionError);
    expect(refused).toMatchObject({ status: 401 });

    await client.user.delete(user.id);
    await expect(client.user.get(user.id)).rejects.toBeInstanceOf(NotFoundError);
    await client.role.delete(role.id);
    await client.node.delete(node.id);
    await client.collaboration.delete(collab.id);
  });

  it('reports refusals with their class, status and the server message', async () => {
    const { client } = await rootClient();
    const missing = await client.task.get(987654).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, path: '/api/task/987654' });

    const org = await client.organization.create({ name: unique('dup') });
    const name = unique('collab-dup');
    await client.collaboration.create({ name, organizationIds: [org.id] });
    const duplicate = await client.collaboration
      .create({ name, organizationIds: [org.id] })
      .catch((e: unknown) => e);
    expect(duplicate).toBeInstanceOf(ValidationError);
    expect((duplicate as ValidationError).serverMessage.length).toBeGreaterThan(0);
  });

  it('changes your own e-mail address only with your current password', async () => {
    const orgId = await t.fx.organization();
    const viewer = await t.fx.user(orgId, { roles: ['Viewer'] });
    const client = new UserClient({ host: 'http://127.0.0.1', port });
    await client.authenticate(viewer.username, viewer.password);
    const email = `${viewer.username}-new@example.org`;
    const refused = await client.user.update(viewer.id, { email }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ status: 400, code: 'current_password_required' });
    const changed = await client.user.update(viewer.id, { email, currentPassword: viewer.password });
    expect(changed.email).toBe(email);
  });

  it('refuses a user without the needed rule with a PermissionError', async () => {
    const orgId = await t.fx.organization();
    const plain = await t.fx.user(orgId);
    const client = new UserClient({ host: 'http://127.0.0.1', port });
    await client.authenticate(plain.username, plain.password);
    const error = await client.collaboration
      .create({ name: unique('c'), organizationIds: [orgId] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({ status: 401 });
  });
});

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
