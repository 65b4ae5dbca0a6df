/**
 * `readResultOutput` / `saveResultOutput` (docs/large-results.md): a large output read as a stream and decrypted as it
 * comes. Real server on a free port, its folder result store; the test plays the node (upload, then report).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text as readText } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DummyCryptor, RsaCryptor, createPrivateKeyFile, encryptingStream } from '@federa/common';
import { startE2eServer, TcpProxy, type E2eServer } from '@federa/testing';

import { FederaClientError } from './errors.js';
import { readResultOutput, saveResultOutput } from './result-output.js';
import { UserClient } from './user-client.js';

let server: E2eServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-client-output-'));
  server = await startE2eServer('127.0.0.1', { config: { result_store: { directory: join(dir, 'store') } } });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A finished run whose output `plain` was uploaded to the store, encrypted for the researcher's organization. */
async function storedRun(plain: Buffer, encrypted: boolean) {
  const { port } = server;
  const t = server;
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const node = await t.fx.node(org, collab);
  const task = await t.fx.task(collab, [org]);
  const id = task.resultIds[0]!;
  const user = await t.fx.user(org, { roles: ['Researcher'] });
  const keyFile = join(dir, `key-${id}.pem`);
  await createPrivateKeyFile(keyFile, { modulusBits: 2048 });
  const researcher = await RsaCryptor.fromFile(keyFile);
  const cryptor = encrypted ? researcher : new DummyCryptor();
  const text = Buffer.from(
    await readText(Readable.from([plain]).pipe(encryptingStream(cryptor, researcher.publicKeyBase64))),
    'latin1',
  );
  const sha256 = createHash('sha256').update(text).digest('hex');
  const nodeToken = await node.token();
  const up = await fetch(`${server.url}/api/result/${id}/output`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${nodeToken}`,
      'content-type': 'application/octet-stream',
      'x-federa-sha256': sha256,
    },
    body: text,
  });
  expect(up.status).toBe(201);
  const body = { status: 'completed', result_stored: { sha256, size: text.length } };
  expect((await t.api('PATCH', `/result/${id}`, body, nodeToken)).status).toBe(200);
  const client = new UserClient({ host: 'http://127.0.0.1', port, apiPath: '/api', warn: () => undefined });
  await client.authenticate(user.username, user.password);
  return { id, client, keyFile };
}

describe('reading a large output as a stream', () => {
  it('saves the decrypted output of an encrypted collaboration to a file', async () => {
    const plain = randomBytes(6 * 1024 * 1024 + 5);
    const { id, client, keyFile } = await storedRun(plain, true);
    expect((await client.result.get(id)).result).toBeNull();
    await client.setupEncryption(keyFile);
    const file = join(dir, `out-${id}`);
    expect(await saveResultOutput(client, id, file)).toBe(plain.length);
    expect((await readFile(file)).equals(plain)).toBe(true);
  });

  it('decodes the output of an unencrypted collaboration, and asks for the key of an encrypted one', async () => {
    const plain = randomBytes(100_000);
    const open = await storedRun(plain, false);
    const chunks: Buffer[] = [];
    for await (const chunk of readResultOutput(open.client, open.id)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(plain)).toBe(true);

    const closed = await storedRun(plain, true);
    const file = join(dir, `refused-${closed.id}`);
    await expect(saveResultOutput(closed.client, closed.id, file)).rejects.toThrow(
      'This output is encrypted: call setupEncryption(privateKeyPath)',
    );
    expect((await readdir(dir)).filter((f) => f.startsWith(`refused-${closed.id}`))).toEqual([]);
  });

  it('fails with a FederaClientError naming the cut when the server goes away during the download', async () => {
    const plain = randomBytes(8 * 1024 * 1024);
    const { id, client: direct } = await storedRun(plain, false);
    // The same user through a link that the test cuts, as a server crash does.
    const proxy = await TcpProxy.start('127.0.0.1', server.port);
    try {
      const client = new UserClient({
        host: 'http://127.0.0.1',
        port: proxy.port,
        apiPath: '/api',
        warn: () => undefined,
      });
      client.resumeSession(direct.sessionTokens!);
      let received = 0;
      const reading = (async () => {
        for await (const chunk of readResultOutput(client, id)) {
          received += (chunk as Buffer).length;
          if (received > 0) proxy.outage('reset');
        }
      })();
      const error: unknown = await reading.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(FederaClientError);
      expect(String((error as Error).message)).toMatch(/result \d+ was cut short.*read it again/);
    } finally {
      await proxy.close();
    }
  });
});
