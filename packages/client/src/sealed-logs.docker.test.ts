/**
 * Sealed logs, end to end (docs/run-logs.md#encrypted-collaborations): a real server, a real node in-process, an
 * algorithm in Docker, an encrypted collaboration. The node seals each live batch and its final log for the task's
 * initiator: the server stores and shows no plain text of the run's output, and the TypeScript and Python clients
 * read it back in plain text with the initiator's private key, while following and once finished; another key
 * gets a clear error. Needs Docker, `federa/helper:local` (scripts/build-images.sh) and /usr/bin/python3 with
 * python3-cryptography and python3-requests.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EncryptionError,
  RsaCryptor,
  SEALED_LOG_HEADER,
  createPrivateKeyFile,
  type Cryptor,
} from '@federa/common';
import { FederaClientError } from './errors.js';
import { UserClient } from './user-client.js';

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

const tag = `sl${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
/** Prints `secret row 1` … `secret row 8` half a second apart, on stdout and stderr in turn. */
const IMAGE = `federa-test/${tag}-rows:local`;
const SCRIPT = `i=1
while [ "$i" -le 8 ]; do
  if [ $((i % 2)) = 0 ]; then echo "secret row $i" >&2; else echo "secret row $i"; fi
  i=$((i + 1)); sleep 0.5
done
printf 'json.{"rows": 8}' > "$OUTPUT_FILE"
`;
const ROWS = Array.from({ length: 8 }, (_, i) => `secret row ${i + 1}`);
const PYTHON = process.env['FEDERA_PYTHON'] ?? '/usr/bin/python3';
const PY_CLIENT = fileURLToPath(new URL('../../../clients/python', import.meta.url));

let server: E2eServer;
let fed: Federation;
let node: StartedNode;
let keyPem: string;
let wrongKeyPem: string;
let researcher: { username: string; password: string };

beforeAll(async () => {
  buildImage(IMAGE, 'FROM federa/helper:local\nCOPY run.sh /run.sh\nCMD ["/bin/sh", "/run.sh"]\n', {
    'run.sh': SCRIPT,
  });
  server = await startE2eServer();
  fed = await createFederation(server, true, tag, ['age\n1\n', 'age\n2\n']);
  node = await startE2eNode(server, fed.orgs[0]!, `${tag}-0`, true);
  // The node's key is its organization's: the root user's organization, which creates the task.
  keyPem = join(node.dataDir, 'private_key.pem');
  wrongKeyPem = join(mkdtempSync(join(tmpdir(), `federa-${tag}-`)), 'other.pem');
  await createPrivateKeyFile(wrongKeyPem, { modulusBits: 2048 });
  researcher = await server.fx.user(fed.orgs[0]!.id, { roles: ['Researcher'] });
}, 120_000);

afterAll(async () => {
  await node?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
  try {
    execFileSync('docker', ['rmi', '-f', IMAGE], { stdio: 'ignore' });
  } catch {
    /* gone already */
  }
}, 60_000);

interface ResultView {
  status: string;
  log: string | null;
  finished_at: string | null;
}

const stored = async (id: number): Promise<ResultView> =>
  (await server.api<ResultView>('GET', `/result/${id}`)).body;

async function post(cryptor: Cryptor): Promise<number> {
  const org = fed.orgs[0]!.id;
  const key = (await server.api<{ public_key: string }>('GET', `/organization/${org}`)).body.public_key;
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'sealed logs',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [{ id: org, input: cryptor.encryptBytesToString(Buffer.from('json.{}'), key) }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const [run] = await until(
    'the run exists',
    async () => (await server.api<{ id: number }[]>('GET', `/task/${posted.body.id}/result`)).body,
    (rs) => rs.length === 1,
    10_000,
    100,
  );
  return run!.id;
}

async function client(key: string | null): Promise<UserClient> {
  const c = new UserClient({ host: 'http://127.0.0.1', port: server.port, warn: () => undefined });
  await c.authenticate(researcher.username, researcher.password);
  if (key !== null) await c.setupEncryption(key);
  return c;
}

/** The Python client's `result.logs` (`follow`: the pieces joined) in a process; its answer or its error. */
function python(id: number, key: string, follow: boolean): Promise<{ log?: string; error?: string }> {
  const script = `
import json, sys, warnings
warnings.simplefilter("ignore")
from federa_client import Client
c = Client("http://127.0.0.1", ${server.port}, "/api")
c.authenticate(sys.argv[1], sys.argv[2])
c.setup_encryption(sys.argv[3])
try:
    logs = c.result.logs(${id}, follow=${follow ? 'True' : 'False'}, interval=0.2)
    print(json.dumps({"log": logs if isinstance(logs, str) else "".join(logs)}))
except Exception as exc:
    print(json.dumps({"error": type(exc).__name__ + ": " + str(exc)}))
`;
  return new Promise((resolve, reject) => {
    const p = spawn(PYTHON, ['-c', script, researcher.username, researcher.password, key], {
      env: { ...process.env, PYTHONPATH: PY_CLIENT },
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`python exited ${code}: ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as { log?: string; error?: string });
    });
  });
}

const rowsOf = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('secret row'));

describe('sealed logs in an encrypted collaboration', () => {
  it('the server holds only sealed pieces; both clients read the log in plain text, following and finished', async () => {
    const initiator = await RsaCryptor.fromFile(keyPem);
    const ts = await client(keyPem);
    const id = await post(initiator);
    const followed: string[] = [];
    const tsFollow = (async () => {
      for await (const piece of ts.result.logs(id, { follow: true })) followed.push(piece);
    })();
    const pyFollow = python(id, keyPem, true);

    // While the run is active: what the server stores is the header and sealed lines, never a row.
    const live = await until(
      'sealed batches while the run is active',
      () => stored(id),
      (r) => (r.log ?? '').split('\n').length >= 4,
      60_000,
      100,
    );
    expect(live.finished_at).toBeNull();
    expect(live.log!.startsWith(SEALED_LOG_HEADER)).toBe(true);
    expect(live.log).not.toContain('secret');
    const lines = live.log!.slice(SEALED_LOG_HEADER.length).split('\n').slice(0, -1);
    for (const line of lines)
      expect(line).toMatch(/^sealed:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]*$/);
    // The TS follower has shown some rows in plain text before the run ended.
    await until(
      'the first rows followed',
      async () => rowsOf(followed.join('')),
      (r) => r.length >= 2,
      30_000,
      100,
    );
    expect((await stored(id)).finished_at).toBeNull();

    await tsFollow;
    const done = await stored(id);
    expect(done.status).toBe('completed');
    expect(done.log!.startsWith(SEALED_LOG_HEADER)).toBe(true);
    expect(done.log).not.toContain('secret');
    expect(rowsOf(followed.join(''))).toEqual(ROWS);
    expect(rowsOf((await ts.result.get(id)).log ?? '')).toEqual(ROWS);
    const once: string[] = [];
    for await (const piece of ts.result.logs(id)) once.push(piece);
    expect(rowsOf(once.join(''))).toEqual(ROWS);

    const py = await pyFollow;
    expect(py.error).toBeUndefined();
    expect(rowsOf(py.log!)).toEqual(ROWS);
    expect(rowsOf((await python(id, keyPem, false)).log!)).toEqual(ROWS);

    // Another organization's key, or none: a clear error, and no plain text.
    const wrong = await client(wrongKeyPem);
    const error = await (async () => {
      for await (const piece of wrong.result.logs(id)) return piece;
      return 'no error';
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EncryptionError);
    expect((error as Error).message).toMatch(
      /^line 2 of this run's log does not decrypt with this private key \(key-block-invalid\): the log is encrypted for the organization that created the task; use that organization's private key$/,
    );
    const keyless = await client(null);
    await expect(keyless.result.logs(id).next()).rejects.toThrow(FederaClientError);
    await expect(keyless.result.logs(id).next()).rejects.toThrow(/This run's log is encrypted/);
    const pyWrong = await python(id, wrongKeyPem, false);
    expect(pyWrong.log).toBeUndefined();
    expect(pyWrong.error).toMatch(
      /^DecryptionError: line 2 of this run's log does not decrypt with this private key .*use that organization's private key$/,
    );
  }, 150_000);
});
