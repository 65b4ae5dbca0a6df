/**
 * The scripts of docs/client-typescript.md, "From login to a decrypted result", run as written (only host and
 * port point at this test's server) with `node` against the built package. The test plays the node.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

import { RsaCryptor, generatePrivateKeyPem } from '@federa/common';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { ROOT_PASSWORD, startE2eServer, type E2eServer } from '@federa/testing';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const docFile = join(root, 'docs/client-typescript.md');
const distIndex = join(root, 'packages/client/dist/index.js');

let server: E2eServer;
let port: number;
let dir: string;

beforeAll(async () => {
  // The scripts import the built package, as a user's scripts do: build it (incremental, fast when current).
  await promisify(execFile)(join(root, 'node_modules/.bin/tsc'), ['--build', 'packages/client'], {
    cwd: root,
  });
  server = await startE2eServer();
  port = server.port;
  dir = await mkdtemp(join(tmpdir(), 'federa-docs-'));
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The ```js blocks of a section of the doc, in order. */
function blocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`## ${heading}`);
  const end = markdown.indexOf('\n## ', start + 3);
  const section = markdown.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

/** A doc script pointed at this server and at the built package. */
function localize(script: string): string {
  return script
    .replaceAll("host: 'http://localhost', port: 5000", `host: 'http://127.0.0.1', port: ${port}`)
    .replaceAll("from '@federa/client'", `from '${pathToFileURL(distIndex).href}'`);
}

function run(file: string, args: string[] = []): { done: Promise<string> } {
  const child = spawn(process.execPath, [file, ...args], {
    cwd: dir,
    env: { ...process.env, FEDERA_PASSWORD: ROOT_PASSWORD },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<string>((resolve, reject) => {
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${file} exited ${code}: ${err}`)),
    );
  });
  return { done };
}

/** What the test reads of the API's answers. */
interface OpenResult {
  id: number;
  input: string;
  task: { initiator: number };
}

async function api<T = unknown>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

it('runs the example of the documentation as written', async () => {
  const [setup, runTask] = blocks(await readFile(docFile, 'utf8'), 'From login to a decrypted result');
  expect(setup).toContain('createPrivateKeyFile');
  expect(runTask).toContain('waitForResults');
  await writeFile(join(dir, 'setup.mjs'), localize(setup!));
  await writeFile(join(dir, 'run-task.mjs'), localize(runTask!));

  const setupOut = await run('setup.mjs').done;
  const args = /run-task\.mjs arguments: (\d+) (\d+)/.exec(setupOut);
  const apiKey = /API key of the node of Hospital E: (\S+)/.exec(setupOut)?.[1];
  expect(args).not.toBeNull();
  expect(apiKey).toBeDefined();
  const organizationId = Number(args![2]);

  // The node starts: it logs in and uploads its organization's public key.
  const login = await fetch(`http://127.0.0.1:${port}/api/token/node`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  const { access_token: nodeToken, node_url: nodeUrl } = (await login.json()) as {
    access_token: string;
    node_url: string;
  };
  const nodeId = Number(nodeUrl.split('/').pop());
  const station = new RsaCryptor(await generatePrivateKeyPem({ modulusBits: 2048 }));
  await api(nodeToken, 'PATCH', `/organization/${organizationId}`, { public_key: station.publicKeyBase64 });

  const runner = run('run-task.mjs', [args![1]!, args![2]!]);
  let open: OpenResult[] = [];
  for (let i = 0; i < 200 && open.length === 0; i++) {
    open = await api<OpenResult[]>(nodeToken, 'GET', `/result?state=open&include=task&node_id=${nodeId}`);
    if (open.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const work = open[0]!;
  expect(station.decryptStringToBytes(work.input).toString()).toBe(
    'json.{"method":"partial_average","args":["age"],"output_format":"json"}',
  );
  const initiator = await api<{ public_key: string }>(
    nodeToken,
    'GET',
    `/organization/${work.task.initiator}`,
  );
  const now = `${new Date().toISOString().slice(0, 23)}000`;
  await api(nodeToken, 'PATCH', `/result/${work.id}`, {
    started_at: now,
    finished_at: now,
    result: station.encryptBytesToString(Buffer.from('json.{"sum":312,"count":8}'), initiator.public_key),
    status: 'completed',
  });
  expect(await runner.done).toContain(`organization ${organizationId} -> {"sum":312,"count":8}`);
}, 120_000);
