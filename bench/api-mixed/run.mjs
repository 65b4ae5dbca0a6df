#!/usr/bin/env node
// Benchmark: a mixed load of researchers and nodes against one Federa server (its own process), beside bare
// Fastify driven by the same load generator with the same concurrency, in the same run.
//   node bench/api-mixed/run.mjs [--users 20] [--nodes 20] [--duration 10] [--postgres] [--instances 2]
//     [--cache-off]
// --instances 2: two instances on PostgreSQL connected through Redis behind nginx (bench/lib/processes.mjs);
// --cache-off: the read cache turned off (response_cache_mb: 0).
// Issue 18 asks for 100 users and 200 nodes: `--users 100 --nodes 200` (seeding takes minutes on a loaded
// machine). Each user is one connection looping over the mix below with their own token; each node keeps a
// socket open, pings every second, and on `new_task` fetches its open runs and reports each one (two PATCHes).
// Needs `npx tsc --build` first; --postgres needs PostgreSQL (FEDERA_BENCH_PG).

// The users' mix (weights, out of 100). Nodes add their own requests (GET open runs, PATCH /result) on top.
const MIX = [
  ['GET /task?page=1&per_page=10', 25],
  ['GET /task/{id}', 15],
  ['GET /result?task_id={id}', 15],
  ['GET /organization?page=1&per_page=10', 10],
  ['GET /collaboration/{id}', 10],
  ['GET /node?page=1&per_page=10', 10],
  ['GET /user/{me}', 10],
  ['POST /task', 5],
];

import { numberOption } from '../lib/load.mjs';
import { flag, machineHeader, startBare, startFederaProcess } from '../lib/processes.mjs';
import { inParallel, seedNodes, SimNode } from '../lib/sim-nodes.mjs';

const userCount = numberOption('users', 20);
const nodeCount = numberOption('nodes', 20);
const duration = numberOption('duration', 10);
const instances = numberOption('instances', 1);
const postgres = flag('postgres') || instances > 1;
const cacheOff = flag('cache-off');
const log = (msg) => console.log(`[api-mixed] ${msg}`);

/** Latencies (ms) per route name, and failures. */
class Recorder {
  latencies = new Map();
  failures = 0;
  async time(route, fn) {
    const t0 = performance.now();
    try {
      await fn();
    } catch (e) {
      this.failures += 1;
      if (this.failures <= 3) console.error(`[api-mixed] ${route}: ${e.message}`);
      return;
    }
    const list = this.latencies.get(route) ?? [];
    list.push(performance.now() - t0);
    this.latencies.set(route, list);
  }
  rows(seconds, bareRps) {
    const pct = (xs, p) => Math.round(xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] * 10) / 10;
    const all = [...this.latencies.values()].flat();
    const rows = [...this.latencies.entries()].map(([route, xs]) => {
      xs.sort((a, b) => a - b);
      return {
        route,
        'req/s': Math.round(xs.length / seconds),
        'p50 ms': pct(xs, 0.5),
        'p99 ms': pct(xs, 0.99),
      };
    });
    all.sort((a, b) => a - b);
    const rps = all.length / seconds;
    rows.push({
      route: 'all',
      'req/s': Math.round(rps),
      'p50 ms': pct(all, 0.5),
      'p99 ms': pct(all, 0.99),
      ...(bareRps ? { 'vs bare': `${Math.round((rps / bareRps) * 100)}%` } : {}),
    });
    return { rows, rps, failures: this.failures };
  }
}

/** `workers` loops calling `step()` until `seconds` have passed. */
async function loop(workers, seconds, step) {
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < end) await step(w);
    }),
  );
}

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
await bare.stop();
const bareResult = bareRec.rows(duration);

// 2. Federa: the federation, the users, the nodes.
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
    body: JSON.stringify({
      collaboration_id: fed.collaborationId,
      organizations: [orgIds[i % orgIds.length], orgIds[(i + 1) % orgIds.length]].map((id) => ({
        id,
        input: 'aW5wdXQ=',
      })),
      name: `mixed ${i}`,
      image: 'bench/image',
    }),
  });
const taskIds = [];
for (let i = 0; i < 50; i++) taskIds.push((await postTask(users[0].auth, i)).id);

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
const total = MIX.reduce((s, [, w]) => s + w, 0);
const pick = () => {
  let x = Math.random() * total;
  for (const [route, w] of MIX) if ((x -= w) < 0) return route;
  return MIX[0][0];
};
const any = (xs) => xs[Math.floor(Math.random() * xs.length)];
let posted = 0;
const paths = {
  'GET /task?page=1&per_page=10': () => '/task?page=1&per_page=10',
  'GET /task/{id}': () => `/task/${any(taskIds)}`,
  'GET /result?task_id={id}': () => `/result?task_id=${any(taskIds)}`,
  'GET /organization?page=1&per_page=10': () => '/organization?page=1&per_page=10',
  'GET /collaboration/{id}': () => `/collaboration/${fed.collaborationId}`,
  'GET /node?page=1&per_page=10': () => '/node?page=1&per_page=10',
};
log(`mixed load: ${userCount} users, ${nodeCount} nodes, ${duration} s…`);
await loop(userCount, duration, async (w) => {
  const route = pick();
  const { auth, id } = users[w];
  if (route === 'POST /task')
    return rec.time(route, async () => taskIds.push((await postTask(auth, ++posted)).id));
  const path = route === 'GET /user/{me}' ? `/user/${id}` : paths[route]();
  return rec.time(route, () => json(`${server.api}${path}`, { headers: auth }));
});
measuring = false;
clearInterval(pinger);
await Promise.all(queues.values());
const rss = server.rss();
for (const n of nodes) n.close();
await server.close();

const result = rec.rows(duration, bareResult.rps);
console.log(
  `\n${machineHeader(`Mixed API load: ${userCount} users (own tokens), ${nodeCount} nodes (sockets, pings every 1 s, runs fetched and reported), ${duration} s, Federa on ${server.dbLabel}${cacheOff ? ', read cache off' : ''}`)}`,
);
console.log(`users' mix: ${MIX.map(([r, w]) => `${r} ${w}%`).join(', ')}`);
console.table([...bareResult.rows.slice(0, 1), ...result.rows]);
console.log(`failures: ${result.failures}; server RSS at the end: ${rss} MB`);
console.log('Targets (issue 18): >= 25% of bare Fastify on SQLite, >= 15% on PostgreSQL, p99 < 25 ms.');
process.exit(0);
