#!/usr/bin/env node
// Benchmark: a mixed load of researchers and nodes against one Federa server (its own process), beside bare
// Fastify driven by the same load generator with the same concurrency, in the same run.
//   node bench/api-mixed/run.mjs [--users 20] [--nodes 20] [--duration 10] [--postgres] [--instances 2]
//     [--cache-off] [--rate R|auto [--procs 2] [--warmup 2] [--grace 10] [--conns-per-user 6]]
// --instances 2: two instances on PostgreSQL connected through Redis behind nginx (bench/lib/processes.mjs);
// --cache-off: the read cache turned off (response_cache_mb: 0).
// Issue 18 asks for 100 users and 200 nodes: `--users 100 --nodes 200` (seeding takes minutes on a loaded
// machine). Each user is one connection looping over the mix (mix.mjs) with their own token; each node keeps a
// socket open, pings every second, and on `new_task` fetches its open runs and reports each one (two PATCHes).
// --rate: the open loop instead (open-loop.mjs): R requests per second in all (users' and nodes'), each sent when
// due whether or not earlier ones were answered, latency from the time it was due; `auto` is the target share of
// the bare ceiling measured first (25% on SQLite, 15% on PostgreSQL), and bare Fastify gets the same rate too.
// Why: docs/performance.md. Needs `npx tsc --build` first; --postgres needs PostgreSQL (FEDERA_BENCH_PG).

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { numberOption } from '../lib/load.mjs';
import { flag, machineHeader, postgresCpuMs, startBare, startFederaProcess } from '../lib/processes.mjs';
import { inParallel, seedNodes, SimNode } from '../lib/sim-nodes.mjs';
import { MIX, pickRoute, taskBody, userPath } from './mix.mjs';
import { autoShare, rateOption, scheduleLines, startOpenLoop, usersRate } from './open-loop.mjs';
import { loop, Recorder } from './recorder.mjs';

const userCount = numberOption('users', 20);
const nodeCount = numberOption('nodes', 20);
const duration = numberOption('duration', 10);
const instances = numberOption('instances', 1);
const postgres = flag('postgres') || instances > 1;
const cacheOff = flag('cache-off');
let rateArg;
try {
  rateArg = rateOption();
} catch (e) {
  console.error(`[api-mixed] ${e.message}`);
  process.exit(2);
}
const openLoop = rateArg !== undefined;
const procs = Math.max(1, Math.min(numberOption('procs', 2), userCount));
const warmup = numberOption('warmup', 2);
const grace = numberOption('grace', 10);
const connsPerUser = numberOption('conns-per-user', 6);
for (const [name, v, min] of [
  ['users', userCount, 1],
  ['nodes', nodeCount, 2],
  ['duration', duration, 1],
  ['procs', procs, 1],
  ['warmup', warmup, 0],
  ['grace', grace, 0],
  ['conns-per-user', connsPerUser, 1],
])
  if (!Number.isFinite(v) || v < min) {
    console.error(`[api-mixed] --${name} takes a number of at least ${min}, not ${v}`);
    process.exit(2);
  }
const log = (msg) => console.log(`[api-mixed] ${msg}`);
const loadAtStart = loadavg()[0];

const json = async (url, init) => {
  const r = await fetch(url, init);
  const body = await r.json();
  if (r.status >= 300) throw new Error(`${r.status} ${JSON.stringify(body).slice(0, 200)}`);
  return body;
};

// 1. The ceiling: bare Fastify GET /hello, the same generator, one connection per user.
const bare = await startBare();
log(`bare Fastify: ${userCount} connections, ${duration} s…`);
const bareRec = new Recorder();
await loop(userCount, duration, () => bareRec.time('bare GET /hello', () => json(`${bare.url}/hello`)));
const bareResult = bareRec.rows(duration);

// 1b. The open loop: the rate, and bare Fastify at that rate.
const rate = rateArg === 'auto' ? autoShare(postgres) * bareResult.rps : rateArg;
const gen = openLoop ? await startOpenLoop(procs) : null;
let bareOpen;
if (openLoop) {
  log(
    `bare Fastify, open loop: ${Math.round(rate)} req/s over ${procs} processes, ${warmup} s + ${duration} s…`,
  );
  // The same users' connections as Federa gets, without tokens.
  const anonymous = Array.from({ length: userCount }, () => ({ auth: {} }));
  bareOpen = await gen.run({
    target: 'bare',
    base: bare.url,
    rate,
    warmup,
    duration,
    grace,
    connsPerUser,
    users: anonymous,
  });
}
await bare.stop();

// 2. Federa: the federation, the users, the nodes. In the open loop one instance also watches its own event loop and
// garbage collections in the measured window (bench/lib/loop-watch.mjs).
const watchFile =
  openLoop && instances === 1 ? join(mkdtempSync(join(tmpdir(), 'federa-watch-')), 'loop.json') : null;
if (watchFile) process.env.FEDERA_BENCH_WATCH = watchFile;
const server = await startFederaProcess({
  postgres,
  instances,
  extra: cacheOff ? { response_cache_mb: 0 } : {},
});
log(
  `Federa on ${server.dbLabel}: seeding ${nodeCount} organizations with a node each and ${userCount} users…`,
);
const fed = await seedNodes(server.api, nodeCount);
const { call, token: rootToken } = fed;
const me = await call('GET', '/user?username=root', undefined, rootToken);
const rootOrg = (me.data ?? me)[0].organization.id;
const roles = await call('GET', '/role?name=Researcher', undefined, rootToken);
const researcher = (roles.data ?? roles)[0].id;
const users = await inParallel([...Array(userCount).keys()], 8, async (i) => {
  const password = `Mixed-User-${i}-pw!`;
  const user = await call(
    'POST',
    '/user',
    {
      username: `mixed-${i}`,
      firstname: 'Mixed',
      lastname: `User ${i}`,
      email: `mixed-${i}@example.org`,
      password,
      organization_id: rootOrg,
      roles: [researcher],
    },
    rootToken,
  );
  const { access_token } = await call('POST', '/token/user', { username: `mixed-${i}`, password });
  return { id: user.id, auth: { authorization: `Bearer ${access_token}` } };
});
const orgIds = fed.nodes.map((n) => n.organizationId);
const postTask = (auth, i) =>
  json(`${server.api}/task`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: taskBody(fed.collaborationId, orgIds, i),
  });
const taskIds = [];
for (let i = 0; i < 50; i++) taskIds.push((await postTask(users[0].auth, i)).id);

const title = `Mixed API load: ${userCount} users (own tokens), ${nodeCount} nodes (sockets, pings every 1 s, runs fetched and reported), ${duration} s, Federa on ${server.dbLabel}${cacheOff ? ', read cache off' : ''}`;
const targets = 'Targets: >= 25% of bare Fastify on SQLite, >= 15% on PostgreSQL, p99 < 25 ms.';

if (openLoop) {
  log(`connecting ${nodeCount} nodes over ${procs} processes…`);
  await gen.connectNodes(server.url, fed.nodes);
  // How many nodes one task post reaches (the whole collaboration, or only those with a run): it sets the nodes'
  // share of the rate. Three posts, counted once the events have had a second to arrive.
  await gen.newTasks();
  for (let i = 0; i < 3; i++) taskIds.push((await postTask(users[0].auth, 50 + i)).id);
  await new Promise((r) => setTimeout(r, 1000));
  const reached = (await gen.newTasks()) / 3;
  const uRate = usersRate(rate, reached);
  log(
    `mixed load, open loop: ${Math.round(rate)} req/s in all (users ${Math.round(uRate)}/s, nodes the rest: ` +
      `a task post reaches ${reached} nodes), ` +
      `${warmup} s + ${duration} s…`,
  );
  // The measured window (after the warm-up): the server's CPU and, with one instance, its own event loop.
  let cpuAtStart = null;
  let cpuInWindow = 0;
  const startWindow = () => {
    cpuAtStart = server.cpuMs();
    if (watchFile) server.child.kill('SIGUSR2');
  };
  // Once: at the window's end, or when the run comes back first (a short run can end before its timer fires).
  const endWindow = () => {
    if (cpuAtStart === null) return;
    cpuInWindow = server.cpuMs() - cpuAtStart;
    cpuAtStart = null;
    if (watchFile) server.child.kill('SIGUSR1');
  };
  const windowStart = setTimeout(startWindow, 500 + warmup * 1000);
  const windowEnd = setTimeout(endWindow, 500 + (warmup + duration) * 1000);
  const fedOpen = await gen.run({
    target: 'federa',
    base: server.api,
    rate: uRate,
    warmup,
    duration,
    grace,
    connsPerUser,
    users,
    taskIds,
    collaborationId: fed.collaborationId,
    orgIds,
    tag: Date.now().toString(36),
  });
  clearTimeout(windowStart);
  clearTimeout(windowEnd);
  endWindow();
  await gen.closeNodes();
  const rss = server.rss();
  // The watch file is written when the server takes SIGUSR1: a turn of its event loop, given up to 2 s.
  for (let waited = 0; watchFile && !existsSync(watchFile) && waited < 2000; waited += 50)
    await new Promise((r) => setTimeout(r, 50));
  const watched = watchFile && existsSync(watchFile) ? JSON.parse(readFileSync(watchFile, 'utf8')) : null;
  if (watchFile) rmSync(dirname(watchFile), { recursive: true, force: true });
  await server.close();

  // 3. The same work without Federa's shape: bare Fastify spending Federa's CPU per request of the window (its
  // nodes' pings included) on each request, at the same rate and through the same generator. Its p99 is what this
  // machine gives that much work at this rate; what Federa's p99 has above it comes from how Federa's work falls
  // (stalls of its event loop, garbage collections, bursts), not from the amount (docs/performance.md).
  const answeredInWindow = fedOpen.rec.count();
  const cpuPerRequestUs = answeredInWindow > 0 ? Math.round((cpuInWindow * 1000) / answeredInWindow) : 0;
  const calibrated = await startBare();
  log(
    `bare Fastify spending ${cpuPerRequestUs} us of CPU per request (Federa's), open loop at ${Math.round(rate)} req/s…`,
  );
  const calibratedOpen = await gen.run({
    target: 'bare',
    barePath: `/work/${cpuPerRequestUs}`,
    base: calibrated.url,
    rate,
    warmup,
    duration,
    grace,
    connsPerUser,
    users: Array.from({ length: userCount }, () => ({ auth: {} })),
  });
  await calibrated.stop();
  gen.close();

  const bareRows = bareOpen.rec.rows(duration);
  const fedRows = fedOpen.rec.rows(duration, {
    "Federa, the users' routes": (r) => !r.startsWith('node '),
    "Federa, the nodes' routes": (r) => r.startsWith('node '),
  });
  const how =
    rateArg === 'auto'
      ? `auto: ${Math.round(autoShare(postgres) * 100)}% of the bare ceiling of ${Math.round(bareResult.rps)} req/s measured first`
      : 'given';
  console.log(`\n${machineHeader(`${title}; open loop at ${Math.round(rate)} req/s (${how})`)}`);
  console.log(`users' mix: ${MIX.map(([r, w]) => `${r} ${w}%`).join(', ')}`);
  console.log(
    `each task post reached ${reached} nodes with new_task (each GETs its open runs; the 2 with a run PATCH twice); ` +
      `users ${Math.round(uRate)} req/s, nodes the rest of the rate`,
  );
  console.log(
    `latency counted from the time each request was due (a node's GET from the arrival of new_task); ${warmup} s of warm-up not counted`,
  );
  const ceiling = {
    ...bareResult.rows[0],
    route: `bare GET /hello, closed loop, ${userCount} connections (ceiling)`,
  };
  console.table([
    ceiling,
    { ...bareRows.all, route: `bare GET /hello at ${Math.round(rate)} req/s` },
    {
      ...calibratedOpen.rec.rows(duration).all,
      route: `bare, ${cpuPerRequestUs} us CPU each (Federa's), at ${Math.round(rate)} req/s`,
    },
    ...fedRows.rows,
    ...fedRows.groups,
    {
      ...fedRows.all,
      route: `Federa, all, at ${Math.round(rate)} req/s`,
      'vs bare': `${Math.round((fedRows.rps / bareResult.rps) * 100)}%`,
    },
  ]);
  for (const line of [
    ...scheduleLines('bare at the rate', bareOpen, { rate, duration }),
    ...scheduleLines('Federa at the rate', fedOpen, { rate: uRate, duration }),
  ])
    console.log(line);
  console.log(
    `Federa's server in the window: ${cpuPerRequestUs} us of CPU per request answered (${Math.round(cpuInWindow)} ms ` +
      `for ${answeredInWindow} requests, its nodes' pings included)`,
  );
  if (watched) {
    const gc = Object.entries(watched.gc)
      .map(([kind, g]) => `${kind} ${g.n} (${g.ms} ms, longest ${g.max_ms} ms)`)
      .join(', ');
    console.log(
      `  its event loop: delay p50 ${watched.loop_delay_ms.p50} ms, p99 ${watched.loop_delay_ms.p99} ms, ` +
        `max ${watched.loop_delay_ms.max} ms; stood still >= ${watched.stalls.at_least_ms} ms ${watched.stalls.n} times ` +
        `(${watched.stalls.ms} ms in all${watched.stalls.n ? `; longest ${watched.stalls.longest_ms.join(', ')} ms` : ''}); ` +
        `garbage collections: ${gc || 'none'}`,
    );
  }
  for (const m of [...bareOpen.rec.messages, ...fedOpen.rec.messages, ...calibratedOpen.rec.messages])
    console.log(`first failures: ${m}`);
  const p99 = fedRows.all['p99 ms'];
  console.log(
    `At ${Math.round(rate)} req/s: Federa answered ${Math.round(fedRows.rps)} req/s (${Math.round((fedRows.rps / rate) * 100)}% of the rate), ` +
      `p99 ${p99} ms in all (bare Fastify at the same rate: p99 ${bareRows.all['p99 ms']} ms); ` +
      `failures ${fedRows.all.failures}, of which ${fedOpen.rec.unanswered} unanswered ${grace} s after the window ` +
      `(bare ${bareRows.all.failures}); server RSS at the end: ${rss} MB`,
  );
  console.log(
    `load average (1 min): ${loadAtStart.toFixed(2)} when the bench started, ${loadavg()[0].toFixed(2)} at the end`,
  );
  console.log(targets);
  process.exit(0);
}

const rec = new Recorder();
log(`connecting ${nodeCount} nodes…`);
const nodes = await inParallel(fed.nodes, 20, async (n) => {
  const node = new SimNode(server.url, n);
  await node.connect();
  return node;
});
const now = () => new Date().toISOString().replace('Z', '');
// Each node does one thing at a time, as the node's queue does; nothing new once the measured window is over.
let measuring = true;
const queues = new Map();
for (const node of nodes) {
  queues.set(node, Promise.resolve());
  node.onNewTask = (taskId) =>
    queues.set(
      node,
      queues.get(node).then(async () => {
        if (!measuring) return;
        let runs = [];
        await rec.time('node GET /result?state=open&task_id=…', async () => {
          const r = await node.get(
            `/result?state=open&include=task&node_id=${node.node.id}&task_id=${taskId}`,
          );
          runs = r.data ?? r;
        });
        for (const run of runs) {
          if (!measuring) return;
          await rec.time('node PATCH /result/{id}', () =>
            node.patch(`/result/${run.id}`, { started_at: now(), status: 'active' }),
          );
          await rec.time('node PATCH /result/{id}', () =>
            node.patch(`/result/${run.id}`, {
              result: 'ZG9uZQ==',
              log: 'bench',
              finished_at: now(),
              status: 'completed',
            }),
          );
        }
      }),
    );
}
const pinger = setInterval(() => {
  for (const node of nodes) node.socket.emit('ping');
}, 1000);

// The users' loop: a weighted pick from MIX per request.
let posted = 0;
log(`mixed load: ${userCount} users, ${nodeCount} nodes, ${duration} s…`);
const cpuAtStart = { federa: server.cpuMs(), postgres: postgres ? postgresCpuMs() : 0 };
await loop(userCount, duration, async (w) => {
  const route = pickRoute();
  const { auth, id } = users[w];
  if (route === 'POST /task')
    return rec.time(route, async () => taskIds.push((await postTask(auth, ++posted)).id));
  const path = userPath(route, { userId: id, taskIds, collaborationId: fed.collaborationId });
  return rec.time(route, () => json(`${server.api}${path}`, { headers: auth }));
});
measuring = false;
const cpuUsed = {
  federa: server.cpuMs() - cpuAtStart.federa,
  postgres: postgres ? postgresCpuMs() - cpuAtStart.postgres : 0,
};
clearInterval(pinger);
await Promise.all(queues.values());
const rss = server.rss();
for (const n of nodes) n.close();
await server.close();

const result = rec.rows(duration, bareResult.rps);
console.log(`\n${machineHeader(title)}`);
console.log(`users' mix: ${MIX.map(([r, w]) => `${r} ${w}%`).join(', ')}`);
console.table([...bareResult.rows.slice(0, 1), ...result.rows]);
console.log(`failures: ${result.failures}; server RSS at the end: ${rss} MB`);
// CPU per request says what a change saved even when the machine's speed moves between runs.
const perRequest = (ms) => Math.round((ms * 1000) / (result.rps * duration));
console.log(
  `CPU per request in the measured window: Federa ${perRequest(cpuUsed.federa)} µs` +
    (postgres ? `, PostgreSQL ${perRequest(cpuUsed.postgres)} µs (all its processes on this machine)` : ''),
);
console.log(targets);
process.exit(0);
