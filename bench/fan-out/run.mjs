#!/usr/bin/env node
// Benchmark: one task for N organizations (default 1,000; an encrypted input per organization) posted to one
// server with N simulated nodes connected (sockets), beside bare Fastify + socket.io doing the same shape of
// work in the same run (a POST that emits one event to N sockets, then each socket GETs a run-sized answer). The
// servers run in their own processes; the nodes and the researcher share this one.
//   node bench/fan-out/run.mjs [--orgs 1000] [--rounds 5] [--plain] [--postgres]
// Prints per round (medians): the researcher's encryption of the N inputs, POST /api/task until its answer,
// POST until the last node got `new_task`, and until every node fetched its run (GET /api/result?task_id=…).
// A node starts its fetch on the turn after `new_task` arrived (setImmediate), so that the arrivals of the other
// nodes' events, which this one process reads too, are timed before the fetches' work, as separate nodes would be.
// Needs `npx tsc --build` first; --postgres needs PostgreSQL (FEDERA_BENCH_PG).
import {
  encryptForOrganizations,
  generatePrivateKeyPem,
  loadPrivateKey,
  publicKeyBase64,
  RsaCryptor,
  DummyCryptor,
} from '@federa/common';
import { loadavg } from 'node:os';
import { io } from 'socket.io-client';
import { numberOption } from '../lib/load.mjs';
import { flag, machineHeader, startBare, startFederaProcess } from '../lib/processes.mjs';
import { inParallel, seedNodes, SimNode } from '../lib/sim-nodes.mjs';

const orgCount = numberOption('orgs', 1000);
const rounds = numberOption('rounds', 5);
const encrypted = !flag('plain');
const postgres = flag('postgres');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => Math.round(x * 10) / 10;
const log = (msg) => console.log(`[fan-out] ${msg}`);

/** Resolves once `done()` is true, checking on every event loop turn; rejects after `timeoutMs`. */
function until(done, timeoutMs, what) {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (done()) return resolve(performance.now());
      if (performance.now() - start > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setImmediate(check);
    };
    check();
  });
}

/** When the last of these arrivals came (performance.now()). */
const lastArrival = (arrivals) => Math.max(...arrivals.map((a) => a.at));

const header = machineHeader(
  `Fan-out: one task for ${orgCount} organizations${encrypted ? ' (encrypted input per organization)' : ''}, ${orgCount} nodes connected, ${rounds} rounds (medians)`,
);

// 1. The ceiling: bare Fastify + socket.io, N bare sockets; each fetches a run-sized answer on `new_task`.
const bare = await startBare();
log(`bare: connecting ${orgCount} sockets…`);
const bareConnectStart = performance.now();
const bareFetched = new Map();
const bareSockets = await inParallel([...Array(orgCount).keys()], 50, async (i) => {
  const s = io(`${bare.url}/tasks`, { forceNew: true, transports: ['websocket'], reconnection: false });
  s.arrivals = [];
  s.on('new_task', (n) => {
    s.arrivals.push({ n, at: performance.now() });
    setImmediate(
      () =>
        void fetch(`${bare.url}/run/${i}`)
          .then((r) => r.json())
          .then(() => bareFetched.set(n, (bareFetched.get(n) ?? 0) + 1))
          .catch((e) => console.error(`[fan-out] bare: ${e.message}`)),
    );
  });
  await new Promise((resolve, reject) => (s.once('connect', resolve), s.once('connect_error', reject)));
  return s;
});
const bareConnectS = (performance.now() - bareConnectStart) / 1000;
const bareRounds = [];
for (let r = 0; r < rounds; r++) {
  const t0 = performance.now();
  const res = await fetch(`${bare.url}/emit`, { method: 'POST' });
  const { sent } = await res.json();
  const answered = performance.now();
  await until(() => bareSockets.every((s) => s.arrivals.some((a) => a.n === sent)), 30_000, 'bare');
  const last = lastArrival(bareSockets.map((s) => s.arrivals.find((a) => a.n === sent)));
  const allFetched = await until(() => bareFetched.get(sent) === orgCount, 60_000, 'the bare fetches');
  bareRounds.push({ answer: answered - t0, last: last - t0, fetched: allFetched - t0 });
}
for (const s of bareSockets) s.close();
await bare.stop();

// 2. Federa: N organizations with a node each in one collaboration, the researcher's key as every organization's.
log(encrypted ? 'making an RSA key (2048 bits) shared by the organizations…' : 'unencrypted collaboration');
const pem = encrypted ? await generatePrivateKeyPem({ modulusBits: 2048 }) : undefined;
const cryptor = encrypted ? new RsaCryptor(pem) : new DummyCryptor();
const publicKey = encrypted ? publicKeyBase64(loadPrivateKey(pem)) : undefined;
const server = await startFederaProcess({ postgres });
log(`Federa on ${server.dbLabel} at ${server.url}; seeding ${orgCount} organizations and nodes…`);
const seedStart = performance.now();
const fed = await seedNodes(server.api, orgCount, { encrypted, publicKey });
const seedS = (performance.now() - seedStart) / 1000;
log(`seeded in ${ms(seedS)} s; connecting ${orgCount} nodes…`);
const connectStart = performance.now();
const nodes = await inParallel(fed.nodes, 20, async (n) => {
  const node = new SimNode(server.url, n);
  await node.connect();
  return node;
});
const connectS = (performance.now() - connectStart) / 1000;
log(`${orgCount} nodes connected in ${ms(connectS)} s (server RSS ${server.rss()} MB)`);
// Each node fetches its run on `new_task`, as a node does: a refused fetch (e.g. 503 with Retry-After) is tried
// again after a second, up to 5 times; the refusals are counted and printed.
const fetched = new Map();
let refusals = 0;
const fetchRun = async (node, taskId) => {
  for (let attempt = 1; ; attempt++) {
    try {
      const runs = await node.get(
        `/result?state=open&include=task&node_id=${node.node.id}&task_id=${taskId}`,
      );
      if ((runs.data ?? runs).length !== 1)
        throw new Error(`node ${node.node.id}: no run for task ${taskId}`);
      fetched.set(taskId, (fetched.get(taskId) ?? 0) + 1);
      return;
    } catch (e) {
      refusals += 1;
      if (attempt === 5) return console.error(`[fan-out] node ${node.node.id} gave up: ${e.message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
};
for (const node of nodes) node.onNewTask = (taskId) => setImmediate(() => void fetchRun(node, taskId));

const fedRounds = [];
const input = new TextEncoder().encode(JSON.stringify({ method: 'average', kwargs: { column: 'age' } }));
for (let r = 0; r < rounds; r++) {
  const e0 = performance.now();
  const organizations = await encryptForOrganizations(
    cryptor,
    fed.nodes.map((n) => ({ id: n.organizationId, input })),
    async () => ({ publicKey }),
  );
  const encryptMs = performance.now() - e0;
  const t0 = performance.now();
  const task = await fed.call(
    'POST',
    '/task',
    { collaboration_id: fed.collaborationId, organizations, name: `fan-out ${r}`, image: 'bench/image' },
    fed.token,
  );
  const answered = performance.now();
  await until(() => nodes.every((n) => n.arrivals.some((a) => a.taskId === task.id)), 60_000, 'new_task');
  const last = lastArrival(nodes.map((n) => n.arrivals.find((a) => a.taskId === task.id)));
  const allFetched = await until(() => fetched.get(task.id) === orgCount, 60_000, 'the runs fetched');
  fedRounds.push({ encryptMs, answer: answered - t0, last: last - t0, fetched: allFetched - t0 });
  log(
    `round ${r + 1}: POST answered ${ms(answered - t0)} ms, last new_task ${ms(last - t0)} ms, all runs fetched ${ms(allFetched - t0)} ms`,
  );
}
const rss = server.rss();
for (const n of nodes) n.close();
await server.close();

const col = (xs, key) => ms(median(xs.map((x) => x[key])));
console.log(`\n${header}`);
console.table([
  {
    setup: `bare Fastify + socket.io (POST emits to ${orgCount} sockets)`,
    'POST answered ms': col(bareRounds, 'answer'),
    'last new_task ms': col(bareRounds, 'last'),
    'all runs fetched ms': col(bareRounds, 'fetched'),
    'client encryption ms': '-',
    'connect s': ms(bareConnectS),
  },
  {
    setup: `Federa on ${server.dbLabel}`,
    'POST answered ms': col(fedRounds, 'answer'),
    'last new_task ms': col(fedRounds, 'last'),
    'all runs fetched ms': col(fedRounds, 'fetched'),
    'client encryption ms': encrypted ? col(fedRounds, 'encryptMs') : '-',
    'connect s': ms(connectS),
  },
]);
console.log(
  `seeding ${orgCount} organizations and nodes through the API: ${ms(seedS)} s; ` +
    `nodes' fetches refused and tried again: ${refusals}; ` +
    `server RSS at the end: ${rss} MB; load average at the end ${loadavg()[0].toFixed(2)}.\n` +
    `Target: answered and received by all ${orgCount} nodes within 1 s.`,
);
process.exit(0);
