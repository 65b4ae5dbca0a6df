#!/usr/bin/env node
/**
 * Benchmark: a large output from a node to a researcher (docs/large-results.md). A Federa server and a Federa node,
 * each in its own process, a real algorithm container that writes N MB of random bytes (default 200), an encrypted
 * collaboration: the node encrypts the output as a stream and uploads it into the server's folder result store; the
 * researcher downloads it as a stream and decrypts it as it comes. Printed: the time of each part, throughput, and
 * the growth of the server's and the node's resident memory over their level before the task, beside the ceiling in
 * the same run: a plain file copy over HTTP (bare-copy.mjs: PUT into a file, GET it back).
 *
 *   npm run build && node bench/large-result/run.mjs [--mb 200]
 *
 * Needs Docker and federa/helper:local (scripts/build-images.sh).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RsaCryptor, decryptingStream, generatePrivateKeyPem } from '@federa/common';
import { buildImage, removeNodeObjects } from '@federa/testing';

import {
  ROOT_PASSWORD,
  machineHeader,
  rssMb,
  startFederaProcess,
  startScript,
  stopChild,
} from '../lib/processes.mjs';

const argv = process.argv.slice(2);
const MB = Number(argv[argv.indexOf('--mb') + 1] ?? 200) || 200;
const BYTES = MB * 1024 * 1024;
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const IMAGE = 'federa-bench/large-output:local';
const tag = `lrb${Date.now().toString(36).slice(-5)}`;
const dir = mkdtempSync(join(tmpdir(), 'federa-bench-large-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mbs = (bytes, ms) => `${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(0)} MB/s`;

/** Samples the resident memory of a process every 50 ms; `peak()` since the last `reset()`. */
function sampler(pid) {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      /* gone */
    }
  }, 50);
  return { reset: () => (peak = rssMb(pid)), peak: () => peak, stop: () => clearInterval(timer) };
}

buildImage(
  IMAGE,
  `FROM federa/helper:local\nCMD ["/bin/sh", "-c", "head -c ${BYTES} /dev/urandom > $OUTPUT_FILE"]\n`,
);

console.log(machineHeader(`bench/large-result: a ${MB} MB output, node → server → researcher, encrypted`));

// --- the ceiling: a plain file copy over HTTP, in the same run ------------------------------------------------
const bare = await startScript(fileURLToPath(new URL('./bare-copy.mjs', import.meta.url)));
const payload = Buffer.alloc(1024 * 1024, 7);
const source = () =>
  Readable.from(
    (function* () {
      for (let i = 0; i < MB; i += 1) yield payload;
    })(),
  );
const bareBase = sampler(bare.child.pid);
bareBase.reset();
let t0 = performance.now();
await fetch(`http://127.0.0.1:${bare.port}/file`, {
  method: 'PUT',
  body: Readable.toWeb(source()),
  duplex: 'half',
});
const bareUpMs = performance.now() - t0;
const bareUpRss = bareBase.peak();
t0 = performance.now();
let bareDown = 0;
for await (const chunk of (await fetch(`http://127.0.0.1:${bare.port}/file`)).body) bareDown += chunk.length;
const bareDownMs = performance.now() - t0;
bareBase.stop();
await stopChild(bare.child);

// --- Federa: server and node in their own processes -------------------------------------------------------------
const server = await startFederaProcess({
  extra: { result_store: { type: 'folder' }, http: { request_timeout_ms: 900_000 } },
});
const api = async (method, path, body, token) => {
  const res = await fetch(`${server.api}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status > 210) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
};
const token = (await api('POST', '/token/user', { username: 'root', password: ROOT_PASSWORD })).access_token;
const me = await api('GET', '/user/1', undefined, token);
const org = me.organization.id;
const collab = await api(
  'POST',
  '/collaboration',
  { name: tag, organization_ids: [org], encrypted: true },
  token,
);
const { api_key: apiKey } = await api(
  'POST',
  '/node',
  { collaboration_id: collab.id, organization_id: org },
  token,
);

const keyFile = join(dir, 'private_key.pem');
writeFileSync(keyFile, await generatePrivateKeyPem({ modulusBits: 2048 }), { mode: 0o600 });
writeFileSync(join(dir, 'default.csv'), 'age\n1\n');
const configFile = join(dir, `${tag}.yaml`);
writeFileSync(
  configFile,
  `application:
  api_key: ${apiKey}
  server_url: http://127.0.0.1
  port: ${server.port}
  api_path: /api
  databases:
    - {label: default, uri: ${join(dir, 'default.csv')}, type: csv}
  encryption: {enabled: true, private_key: ${keyFile}}
  directories: {data: ${join(dir, 'data')}, log: ${join(dir, 'log')}}
  proxy_port: 0
  logging: {level: info}
`,
);
const nodeChild = spawn(
  process.execPath,
  ['packages/node/dist/bin/vnode-local.js', 'start', '-c', configFile, '-n', tag],
  {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PROXY_SERVER_PORT: '0' },
  },
);
let nodeOut = '';
nodeChild.stdout.on('data', (b) => (nodeOut += b));
nodeChild.stderr.on('data', (b) => (nodeOut += b));
const nodeEvent = (event) =>
  nodeOut
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l))
    .find((l) => l.event === event);
const researcher = new RsaCryptor(readFileSync(keyFile, 'utf8'));
for (let i = 0; ; i += 1) {
  const o = await api('GET', `/organization/${org}`, undefined, token);
  if (o.public_key === researcher.publicKeyBase64) break;
  if (i > 300) throw new Error(`the node did not come up:\n${nodeOut.slice(-2000)}`);
  await sleep(100);
}
await sleep(1000);

const serverMem = sampler(server.child.pid);
const nodeMem = sampler(nodeChild.pid);
const serverBefore = serverMem.reset();
const nodeBefore = nodeMem.reset();
t0 = performance.now();
const task = await api(
  'POST',
  '/task',
  {
    name: 'large output',
    image: IMAGE,
    collaboration_id: collab.id,
    organizations: [
      { id: org, input: researcher.encryptBytesToString(Buffer.from('json.{}'), researcher.publicKeyBase64) },
    ],
  },
  token,
);
let run;
for (;;) {
  [run] = await api('GET', `/task/${task.id}/result`, undefined, token);
  if (run.finished_at) break;
  await sleep(100);
}
const runMs = performance.now() - t0;
if (run.status !== 'completed')
  throw new Error(`the run ended ${run.status}: ${run.log}\n${nodeOut.slice(-2000)}`);
const uploaded = nodeEvent('run.output_uploaded');
const serverUpPeak = serverMem.peak();
const nodePeak = nodeMem.peak();

serverMem.reset();
const serverDownBefore = rssMb(server.child.pid);
t0 = performance.now();
const res = await fetch(`${server.api}/result/${run.id}/output`, {
  headers: { authorization: `Bearer ${token}` },
});
const textHash = createHash('sha256');
let plainBytes = 0;
await pipeline(
  Readable.fromWeb(res.body),
  async function* (text) {
    for await (const chunk of text) {
      textHash.update(chunk);
      yield chunk;
    }
  },
  decryptingStream(researcher),
  async (plain) => {
    for await (const chunk of plain) plainBytes += chunk.length;
  },
);
const downMs = performance.now() - t0;
const serverDownPeak = serverMem.peak();
serverMem.stop();
nodeMem.stop();
if (plainBytes !== BYTES) throw new Error(`downloaded ${plainBytes} bytes, expected ${BYTES}`);
if (textHash.digest('hex') !== res.headers.get('x-federa-sha256'))
  throw new Error('the checksum does not match');

const text = run.result_stored.size;
console.log(`
output: ${MB} MB (random bytes) → ${(text / 1024 / 1024).toFixed(0)} MB of encrypted text (base64) in the store

| part | time | throughput | ceiling (plain HTTP file copy, same run) |
|---|---|---|---|
| POST → run finished (container, encryption, upload, report) | ${(runMs / 1000).toFixed(1)} s | ${mbs(BYTES, runMs)} of output | |
| upload (PUT /result/{id}/output, node's figure) | ${(uploaded.ms / 1000).toFixed(1)} s | ${mbs(text, uploaded.ms)} | PUT ${mbs(MB * 1024 * 1024, bareUpMs)} |
| download + decrypt (researcher) | ${(downMs / 1000).toFixed(1)} s | ${mbs(text, downMs)} of text | GET ${mbs(bareDown, bareDownMs)} |

| process | RSS before | peak while it passed | growth |
|---|---|---|---|
| server, upload | ${serverBefore} MB | ${serverUpPeak} MB | ${serverUpPeak - serverBefore} MB |
| server, download | ${serverDownBefore} MB | ${serverDownPeak} MB | ${serverDownPeak - serverDownBefore} MB |
| node (encrypt + upload) | ${nodeBefore} MB | ${nodePeak} MB | ${nodePeak - nodeBefore} MB |
| bare copy server, upload | | ${bareUpRss} MB | |
target: server RSS grows < 50 MB while the output passes`);

nodeChild.kill('SIGTERM');
await new Promise((r) => nodeChild.once('exit', r));
await server.close();
removeNodeObjects(tag);
rmSync(dir, { recursive: true, force: true });
process.exit(0);
