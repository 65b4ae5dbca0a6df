#!/usr/bin/env node
// Benchmark: N simulated nodes on one Federa server (its own process), beside bare socket.io with the same
// clients in the same run. The nodes are the Federa node's own socket code (bench/lib/sim-fleet.mjs: node login, then
// SocketChannel: polling then WebSocket, Authorization header, node_info_update and the sync GET on every connect,
// jittered back-off honouring the server's retry hint), split over processes of --per-process nodes each.
//   1. bare socket.io: N sockets connect; the bare server restarts on its port; the time until all are back.
//   2. Federa: N organizations with a node each in collaborations of --collaboration-size (seeded by `vserver-local
//      import`), logins, all sockets opened at once (connect curve), then --seconds of pings (every --ping-seconds)
//      and light traffic (a task every --task-seconds to one of the first collaborations: its nodes fetch their run),
//      with the server's RSS curve; then the server restarts on its port: the reconnect storm's curve.
//   node bench/node-sockets/run.mjs [--nodes 1000] [--seconds 30] [--ping-seconds 10] [--task-seconds 10]
//        [--collaboration-size 10] [--per-process 1250] [--storm-timeout 120] [--postgres]
// Needs `npx tsc --build` first; --postgres needs PostgreSQL (FEDERA_BENCH_PG).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { apiCaller, numberOption } from '../lib/load.mjs';
import {
  flag,
  machineHeader,
  ROOT_PASSWORD,
  rssMb,
  startBare,
  startFederaProcess,
} from '../lib/processes.mjs';
import { startFleet } from '../lib/sim-fleet-client.mjs';

const nodeCount = numberOption('nodes', 1000);
const seconds = numberOption('seconds', 30);
const pingSeconds = numberOption('ping-seconds', 10);
const taskSeconds = numberOption('task-seconds', 10);
const collabSize = numberOption('collaboration-size', 10);
const perProcess = numberOption('per-process', 1250);
const stormTimeout = numberOption('storm-timeout', 120);
const postgres = flag('postgres');
const vserverLocal = fileURLToPath(new URL('../../packages/server/bin/vserver-local.js', import.meta.url));
const log = (msg) => console.log(`[node-sockets] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const s1 = (ms) => Math.round(ms / 100) / 10;

/**
 * Samples the fleet (and `rss()`) every `everyMs` until `done(status)` or `timeoutS`; returns the time it took (s, or
 * null on timeout), the curve and the last status. `key`: the count the curve shows.
 */
async function follow(fleet, { done, timeoutS, everyMs = 1000, rss, key }) {
  const t0 = performance.now();
  const curve = [];
  let next = everyMs;
  for (;;) {
    const st = await fleet.status();
    const at = performance.now() - t0;
    if (done(st)) {
      curve.push({ s: s1(at), [key]: st[key], 'RSS MB': rss(), busy: st.busy, errors: st.connectErrors });
      return { seconds: s1(at), curve, status: st };
    }
    if (at >= next) {
      curve.push({ s: s1(at), [key]: st[key], 'RSS MB': rss(), busy: st.busy, errors: st.connectErrors });
      next += everyMs;
    }
    if (at > timeoutS * 1000) return { seconds: null, curve, status: st };
    await sleep(50);
  }
}

// 1. Bare socket.io, the same clients.
const bare = await startBare();
let fleet = await startFleet(nodeCount, { perProcess, pingMs: pingSeconds * 1000 });
log(`${fleet.processes} fleet process(es) of simulated nodes; bare socket.io first`);
await fleet.init(bare.url);
const bareRssIdle = rssMb(bare.child.pid);
await fleet.connect();
const bareConnect = await follow(fleet, {
  done: (st) => st.connected === nodeCount,
  timeoutS: stormTimeout,
  rss: () => rssMb(bare.child.pid),
  key: 'connected',
});
const bareRss = rssMb(bare.child.pid);
await fleet.mark();
await bare.restart();
const bareStorm = await follow(fleet, {
  done: (st) => st.back === nodeCount,
  timeoutS: stormTimeout,
  rss: () => rssMb(bare.child.pid),
  key: 'back',
});
await fleet.close();
fleet.kill();
await bare.stop();
log(
  `bare: ${nodeCount} connected in ${bareConnect.seconds} s (RSS ${bareRssIdle} -> ${bareRss} MB); ` +
    `all back ${bareStorm.seconds ?? `> ${stormTimeout}`} s after a restart`,
);

// 2. Federa.
const server = await startFederaProcess({ postgres });
const tag = Date.now().toString(36);
const orgName = (i) => `sim-${tag}-${i}`;
const collabCount = Math.ceil(nodeCount / collabSize);
const apiKeys = Array.from({ length: nodeCount }, () => randomUUID());
const fixture = {
  organizations: Array.from({ length: nodeCount }, (_, i) => ({
    name: orgName(i),
    domain: `${orgName(i)}.example.org`,
    address1: '',
    address2: '',
    zipcode: '',
    country: 'NL',
    public_key: '',
  })),
  collaborations: Array.from({ length: collabCount }, (_, c) => ({
    name: `sim-${tag}-c${c}`,
    encrypted: false,
    participants: [
      ...apiKeys
        .slice(c * collabSize, (c + 1) * collabSize)
        .map((api_key, k) => ({ name: orgName(c * collabSize + k), api_key })),
      // Root's organization in the first ten, so that root can post the light traffic's tasks there.
      ...(c < 10 ? [{ name: 'root' }] : []),
    ],
  })),
};
const fixtureFile = join(tmpdir(), `federa-bench-sockets-${tag}.json`);
writeFileSync(fixtureFile, JSON.stringify(fixture));
log(
  `Federa on ${server.dbLabel}: importing ${nodeCount} organizations with a node each, ${collabCount} collaborations…`,
);
const i0 = performance.now();
await promisify(execFile)(process.execPath, [vserverLocal, 'import', '-c', server.configFile, fixtureFile], {
  maxBuffer: 64 * 1024 * 1024,
});
rmSync(fixtureFile, { force: true });
log(`imported in ${s1(performance.now() - i0)} s`);
const call = apiCaller(server.api);
const { access_token: rootToken } = await call('POST', '/token/user', {
  username: 'root',
  password: ROOT_PASSWORD,
});
const trafficCollabs = [];
for (let c = 0; c < Math.min(10, collabCount); c++) {
  const found = await call('GET', `/collaboration?name=sim-${tag}-c${c}`, undefined, rootToken);
  const collab = (found.data ?? found)[0];
  const me = await call('GET', '/user?username=root', undefined, rootToken);
  const rootOrg = (me.data ?? me)[0].organization.id;
  const members = collab.organizations.map((o) => o.id).filter((id) => id !== rootOrg);
  trafficCollabs.push({ id: collab.id, members });
}

fleet = await startFleet(nodeCount, { perProcess, pingMs: pingSeconds * 1000 });
await fleet.init(server.url, apiKeys);
const rssIdle = server.rss();
const l0 = performance.now();
await fleet.login();
const loginSeconds = s1(performance.now() - l0);
log(`${nodeCount} node logins in ${loginSeconds} s; opening every socket at once…`);
await fleet.connect();
const connect = await follow(fleet, {
  done: (st) => st.connected === nodeCount,
  timeoutS: stormTimeout,
  rss: server.rss,
  key: 'connected',
});
log(`${connect.status.connected}/${nodeCount} connected in ${connect.seconds ?? `> ${stormTimeout}`} s`);

// 3. Pings and light traffic: the RSS curve.
const steady = [];
const started = performance.now();
let tasks = 0;
let nextTask = taskSeconds * 1000;
const sampleEvery = Math.max(5000, (seconds * 1000) / 20);
let nextSample = 0;
while (performance.now() - started < seconds * 1000) {
  const at = performance.now() - started;
  if (at >= nextTask) {
    nextTask += taskSeconds * 1000;
    const target = trafficCollabs[tasks % trafficCollabs.length];
    tasks += 1;
    const organizations = target.members.map((id) => ({ id, input: 'aW5wdXQ=' }));
    call(
      'POST',
      '/task',
      { collaboration_id: target.id, organizations, name: `light ${tasks}`, image: 'bench/image' },
      rootToken,
    ).catch((e) => log(`task: ${e.message}`));
  }
  if (at >= nextSample) {
    nextSample += sampleEvery;
    const st = await fleet.status();
    steady.push({
      s: Math.round(at / 1000),
      'RSS MB': server.rss(),
      connected: st.connected,
      tasks,
      'runs fetched': st.syncs,
    });
  }
  await sleep(200);
}
const last = await fleet.status();
steady.push({
  s: Math.round((performance.now() - started) / 1000),
  'RSS MB': server.rss(),
  connected: last.connected,
  tasks,
  'runs fetched': last.syncs,
});

// 4. The reconnect storm.
log('restarting the server with every node connected…');
await fleet.mark();
const busyBefore = last.busy;
await server.restart();
const storm = await follow(fleet, {
  done: (st) => st.back === nodeCount,
  timeoutS: stormTimeout,
  rss: server.rss,
  key: 'back',
});
await fleet.close();
fleet.kill();
await server.close();

console.log(
  `\n${machineHeader(`Node sockets: ${nodeCount} simulated nodes (${fleet.processes} processes), Federa on ${server.dbLabel}`)}`,
);
const t = (v) => (v === null ? `> ${stormTimeout}` : v);
console.table([
  {
    setup: 'bare socket.io',
    'all connected s': t(bareConnect.seconds),
    'RSS MB idle -> connected': `${bareRssIdle} -> ${bareRss}`,
    'all back after restart s': t(bareStorm.seconds),
  },
  {
    setup: `Federa (logins first: ${loginSeconds} s)`,
    'all connected s': t(connect.seconds),
    'RSS MB idle -> connected': `${rssIdle} -> ${connect.curve.at(-1)['RSS MB']}`,
    'all back after restart s': t(storm.seconds),
  },
]);
console.log('Federa, connect curve (all sockets opened at once; busy: server_busy answers so far):');
console.table(connect.curve);
console.log(
  `Federa RSS over ${seconds} s, every node pinging every ${pingSeconds} s, a task every ${taskSeconds} s:`,
);
console.table(steady);
console.log('Reconnect storm: nodes back, s after the restarted server listened:');
console.table(storm.curve);
console.log(`bare socket.io storm: ${bareStorm.status.back}/${nodeCount} back in ${t(bareStorm.seconds)} s`);
console.log(
  `Federa storm: ${storm.status.back}/${nodeCount} back in ${t(storm.seconds)} s; ${storm.status.busy - busyBefore} server_busy answers, ` +
    `${storm.status.connectErrors - last.connectErrors} other connect errors`,
);
console.log('Target: 5,000 nodes connected within 60 s of a restart, RSS < 600 MB and flat over 10 minutes.');
process.exit(0);
