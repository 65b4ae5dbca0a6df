#!/usr/bin/env node
// Benchmark: N simulated nodes (default 1,000; --nodes 5000 for issue 18's target) connecting to one Federa server
// (its own process), beside the same number of sockets connecting to bare socket.io, in the same run. Then the
// server's RSS over --seconds while every node pings every 5 s, and with --restart the reconnect storm: the server
// stopped and started again on the same port, the nodes coming back with socket.io's back-off (1–5 s, randomized).
//   node bench/node-sockets/run.mjs [--nodes 1000] [--seconds 30] [--restart] [--postgres]
// Needs `npx tsc --build` first; --postgres needs PostgreSQL (FEDERA_BENCH_PG).
import { io } from 'socket.io-client';
import { numberOption } from '../lib/load.mjs';
import { flag, machineHeader, rssMb, startBare, startFederaProcess } from '../lib/processes.mjs';
import { inParallel, seedNodes, SimNode } from '../lib/sim-nodes.mjs';

const nodeCount = numberOption('nodes', 1000);
const seconds = numberOption('seconds', 30);
const restart = flag('restart');
const postgres = flag('postgres');
const log = (msg) => console.log(`[node-sockets] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const s1 = (msFigure) => Math.round(msFigure / 100) / 10;

/** Resolves with the time (performance.now()) when `done()` holds; checks every 20 ms. */
async function until(done, timeoutMs, what) {
  const end = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(20);
  }
  return performance.now();
}

// 1. Bare socket.io: N sockets opened at once.
const bare = await startBare();
const bareRssBefore = rssMb(bare.child.pid);
const b0 = performance.now();
const bareSockets = Array.from({ length: nodeCount }, () =>
  io(`${bare.url}/tasks`, { forceNew: true, transports: ['websocket'] }),
);
const bareAll = await until(() => bareSockets.every((s) => s.connected), 120_000, 'bare sockets');
const bareRss = rssMb(bare.child.pid);
for (const s of bareSockets) s.close();
await bare.stop();
log(`bare: ${nodeCount} sockets connected in ${s1(bareAll - b0)} s, RSS ${bareRssBefore} -> ${bareRss} MB`);

// 2. Federa: N organizations with a node each, logged in first, then all sockets opened at once.
const server = await startFederaProcess({ postgres });
log(`Federa on ${server.dbLabel}: seeding ${nodeCount} organizations and nodes…`);
const fed = await seedNodes(server.api, nodeCount);
const rssIdle = server.rss();
const nodes = fed.nodes.map((n) => new SimNode(server.url, n));
const l0 = performance.now();
await inParallel(nodes, 20, (n) => n.login());
const loginSeconds = s1(performance.now() - l0);
log(`${nodeCount} node logins in ${loginSeconds} s; connecting…`);
const c0 = performance.now();
const failed = [];
await Promise.all(nodes.map((n) => n.connect().catch((e) => failed.push(e.message))));
const connectSeconds = s1((await until(() => nodes.every((n) => n.connected), 120_000, 'the nodes')) - c0);
log(`${nodeCount} nodes connected in ${connectSeconds} s (${failed.length} first attempts refused)`);

// 3. RSS while the nodes ping every 5 s (spread over the 5 s).
const curve = [{ 's since connected': 0, 'RSS MB': server.rss(), connected: nodeCount }];
const pingers = nodes.map((n, i) =>
  setTimeout(() => (n.pinger = setInterval(() => n.socket.emit('ping'), 5000)), (i * 5000) / nodeCount),
);
const started = performance.now();
while (performance.now() - started < seconds * 1000) {
  await sleep(Math.min(5000, (seconds * 1000) / 6));
  curve.push({
    's since connected': Math.round((performance.now() - started) / 1000),
    'RSS MB': server.rss(),
    connected: nodes.filter((n) => n.connected).length,
  });
}
for (const t of pingers) clearTimeout(t);
for (const n of nodes) clearInterval(n.pinger);

// 4. The reconnect storm.
let storm;
if (restart) {
  log('restarting the server with every node connected…');
  const before = nodes.map((n) => n.connects);
  await server.restart();
  const r0 = performance.now();
  const back = () => nodes.filter((n, i) => n.connected && n.connects > before[i]).length;
  const all = await until(() => back() === nodeCount, 120_000, 'the nodes to reconnect').catch((e) => {
    log(e.message);
    return undefined;
  });
  storm = { back: back(), seconds: all ? s1(all - r0) : '> 120', rss: server.rss() };
}
for (const n of nodes) n.close();
await server.close();

console.log(`\n${machineHeader(`Node sockets: ${nodeCount} simulated nodes, Federa on ${server.dbLabel}`)}`);
console.table([
  {
    setup: 'bare socket.io',
    'all connected s': s1(bareAll - b0),
    'RSS MB (idle -> connected)': `${bareRssBefore} -> ${bareRss}`,
  },
  {
    setup: `Federa (logins first: ${loginSeconds} s)`,
    'all connected s': connectSeconds,
    'RSS MB (idle -> connected)': `${rssIdle} -> ${curve[0]['RSS MB']}`,
  },
]);
console.log(`Federa RSS over ${seconds} s, every node pinging every 5 s:`);
console.table(curve);
if (storm)
  console.log(
    `reconnect storm: ${storm.back}/${nodeCount} nodes back ${storm.seconds} s after the restarted server listened; RSS ${storm.rss} MB`,
  );
console.log(
  'Target (issue 18): 5,000 nodes connected within 60 s of a restart, RSS < 600 MB and flat over 10 minutes.',
);
process.exit(0);
