#!/usr/bin/env node
// Benchmark: Federa API throughput beside a bare Fastify hello-world, same machine, same run.
// autocannon (20 connections, 10 s each) runs as a separate process; the servers run in this one.
// Prints req/s, p50/p99 latency and the ratio to bare Fastify. Needs `npx tsc --build` first.
//   node bench/api-throughput/run.mjs [--duration 10] [--connections 20] [--writes 50] [--postgres]
//     [--profile out.cpuprofile] [--only cached|writes|uncached|metrics|tracing|v4] [--metrics] [--tracing] [--v4]
// --metrics (or --only metrics): also the server's CPU per request with its Prometheus metrics on and off, on the
// cached organization read (the cheapest request, so the one where recording it weighs most), the two servers side by
// side in processes of their own (bench/lib/side-by-side.mjs); target: at most 3% more.
// --tracing (or --only tracing): the same with the metrics and tracing on (spans sent by OTLP/HTTP to a receiver in
// a process of its own) against both off; target: at most 3% more.
// --v4 (or --only v4): the server's CPU per request of the same task page on the 3.x surface (/api) and the vantage6
// 4.x one (/v4/api, its items reshaped into 4.x's), cache off, alternated over rounds; target: at most 10% more.
// --postgres: a new PostgreSQL database (FEDERA_BENCH_PG) instead of the SQLite file.
// --profile writes a CPU profile of this (server) process while autocannon loads Federa (open it in Chrome
// DevTools or speedscope).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp, createContext, parseServerConfig } from '@federa/server';
import { apiCaller, cannon, numberOption, seedFederation } from '../lib/load.mjs';
import { benchDatabase, flag, machineHeader } from '../lib/processes.mjs';
import { startMinimalTaskList } from '../lib/minimal-task-list.mjs';
import { startCollector } from '../lib/otlp-collector.mjs';
import { sideBySide } from '../lib/side-by-side.mjs';

const duration = numberOption('duration', 10);
const profileIndex = process.argv.indexOf('--profile');
const profilePath = profileIndex > 0 ? process.argv[profileIndex + 1] : undefined;
const connections = numberOption('connections', 20);
const postgres = flag('postgres');
// Taken now: the load average when the run started.
const header = machineHeader(
  `API throughput on ${postgres ? 'PostgreSQL' : 'SQLite'} (${connections} connections, ${duration} s each; target: Federa >= 40% of bare Fastify, the uncached task list >= 15%)`,
);
// The server runs in this process: its CPU time per request (user + system) is measured beside the rates. It
// varies far less with other work on the machine than req/s does (PostgreSQL's own CPU is not in it).
const load = async (url, headers = {}) => {
  const before = process.cpuUsage();
  const r = await cannon(url, { headers, duration, connections });
  const used = process.cpuUsage(before);
  return { ...r, cpuUs: r.total > 0 ? (used.user + used.system) / r.total : NaN };
};

const results = [];
const report = (name, r, base) =>
  results.push({
    name,
    'req/s': Math.round(r.rps),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    'vs bare': base ? `${((r.rps / base.rps) * 100).toFixed(0)}%` : '100%',
    'non-2xx': r.non2xx + r.errors,
    'server CPU µs/req': Math.round(r.cpuUs),
  });

// 1. bare Fastify
const bare = Fastify();
bare.get('/hello', async () => ({ hello: 'world' }));
await bare.listen({ port: 0, host: '127.0.0.1' });
console.log(`bare fastify: ${duration}s, ${connections} connections…`);
const bareResult = await load(`http://127.0.0.1:${bare.server.address().port}/hello`);
await bare.close();
report('bare Fastify GET /hello', bareResult);

// 2. Federa on its embedded SQLite database (a file, as in production): first as configured by default, with the
// read cache (answers of GETs kept until the database changes), then over the same file with the cache off.
const dir = mkdtempSync(join(tmpdir(), 'federa-bench-'));
const db = await benchDatabase(dir, postgres);
const configWith = (extra) =>
  parseServerConfig(
    {
      uri: db.uri,
      jwt_secret_key: 'bench-secret-key-that-is-long-enough',
      root_user: { email: 'root@example.org', password: 'Bench-Root-1!' },
      bcrypt_rounds: 4,
      password_policy: { max_failed_attempts_per_address: 1000 },
      ...extra,
    },
    'bench.yaml',
  );
const startFedera = async (extra) => {
  const { ctx } = await createContext({
    config: configWith(extra),
    dataDir: dir,
    log: pino({ level: 'silent' }),
  });
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { ctx, app, base: `http://127.0.0.1:${app.server.address().port}/api` };
};

let federa = await startFedera({});
const { token, orgs } = await seedFederation(apiCaller(federa.base), 'Bench-Root-1!');
const auth = { authorization: `Bearer ${token}` };
const stopFedera = async () => {
  await federa.app.close();
  await federa.ctx.dbh.close();
  federa = undefined;
};
const profiler = profilePath ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
const writesPerSecond = numberOption('writes', 50);
// Three runs: the default configuration (read cache on); the same while a client changes the database
// `--writes` times a second (each change starts the cache afresh: the mixed case); the cache turned off (what
// every request right after a change costs).
const TASK_PAGE = '/task?page=1&per_page=10';
/** Federa's uncached answer of the task page, compared with the hand-written minimum's below. */
let taskListAnswer;
// `--only` runs one of the three (e.g. to profile the uncached path alone).
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const runs = [
  ['cached', '', {}, 0],
  ['writes', ` (${writesPerSecond} writes/s beside)`, {}, writesPerSecond],
  ['uncached', ' (cache off)', { response_cache_mb: 0 }, 0],
].filter(([name]) => only === undefined || only === name);
if (runs.length === 0 && only !== 'metrics' && only !== 'tracing' && only !== 'v4')
  throw new Error(`--only takes cached, writes, uncached, metrics, tracing or v4 (not ${only})`);
// The seeding server runs with the cache on; a first run with other settings starts its own.
if (runs.length === 0 || Object.keys(runs[0][2]).length > 0) await stopFedera();
for (const [, label, extra, writes] of runs) {
  if (!federa) federa = await startFedera(extra);
  const { base } = federa;
  const call = apiCaller(base);
  let n = 0;
  const writer =
    writes > 0
      ? setInterval(
          () =>
            void call('PATCH', `/organization/${orgs[1]}`, { address1: `street ${++n}` }, token).catch((e) =>
              console.error(`write failed: ${e.message}`),
            ),
          1000 / writes,
        )
      : undefined;
  if (extra.response_cache_mb === 0)
    taskListAnswer = await (await fetch(`${base}${TASK_PAGE}`, { headers: auth })).text();
  for (const [what, path] of [
    ['GET /api/organization/{id}', `/organization/${orgs[0]}`],
    ['GET /api/task?page=1&per_page=10', TASK_PAGE],
  ]) {
    console.log(`federa${label} ${what}: ${duration}s…`);
    report(`Federa${label} ${what}`, await load(`${base}${path}`, auth), bareResult);
  }
  clearInterval(writer);
  if (federa.ctx.readCache) {
    const { hits, stored, cleared } = federa.ctx.readCache.stats;
    console.log(
      `read cache: ${hits} answers from memory, ${stored} computed and kept, dropped ${cleared} times`,
    );
  }
  await stopFedera();
}
// Metrics (and tracing) on and off, side by side (bench/lib/side-by-side.mjs): two processes, one with each
// configuration, loaded at the same time, so that the machine's other load falls on both alike. The figure is the
// median over three rounds of the server's CPU per request of each.
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// The metrics' and the tracing's own code, as a profile names it: their hooks into each request (the arrival and the
// answer's end), the histogram, the process metrics' collectors, prom-client, the OpenTelemetry SDK, the parse of a
// traceparent. A profiled round of the server that is on counts the share of its samples in them.
const OWN_CODE = [
  'dist/metrics/',
  'dist/http/request-lifecycle\\.js',
  'dist/http/request-tracing\\.js',
  'node:diagnostics_channel',
  'node:internal/perf/',
  'prom-client',
  '@opentelemetry',
  'parseTraceparent',
].join('|');
const onAndOff = async (what, onConfig, offConfig, afterOn = async () => undefined, headers = {}) => {
  console.log(
    `federa (${what} on and off side by side, 3 rounds) GET /api/organization/{id}: ${duration}s each…`,
  );
  const rounds = await sideBySide({
    sqliteFile: postgres ? null : db.uri.replace(/^sqlite:\/\/\//, ''),
    uri: db.uri,
    onConfig,
    offConfig,
    path: `/organization/${orgs[0]}`,
    headers: { ...auth, ...headers },
    duration,
    connections,
    rounds: 3,
    afterRound: afterOn,
    attribute: OWN_CODE,
  });
  for (const { round, on, off } of rounds)
    for (const [side, r] of [
      ['on', on],
      ['off', off],
    ])
      report(`Federa (${what} ${side}, round ${round}) GET /api/organization/{id}`, r, bareResult);
  return {
    what,
    on: median(rounds.map((r) => r.on.cpuUs)),
    off: median(rounds.map((r) => r.off.cpuUs)),
    attributed: rounds.attributed,
  };
};
// A scrape as Prometheus makes it, so that the grouped query and the text are not left out of the run.
const scrape = async (app) => {
  const status = await app.ask('scrape', 'scraped');
  if (status !== 200) console.error(`[api-throughput] the metrics answered ${status}`);
};
const scrapeAndFlush = async (app) => {
  await scrape(app);
  await app.ask('flush', 'flushed');
};
const costs = [];
if (flag('metrics') || only === 'metrics')
  costs.push(
    await onAndOff('metrics', { metrics: { enabled: true } }, { metrics: { enabled: false } }, scrape),
  );
if (flag('tracing') || only === 'tracing') {
  const collector = await startCollector();
  try {
    costs.push(
      await onAndOff(
        'metrics and tracing',
        { metrics: { enabled: true }, tracing: { endpoint: collector.endpoint } },
        { metrics: { enabled: false } },
        scrapeAndFlush,
      ),
    );
    // For the record, not the target: what a request inside a trace costs (a span made and sent). Tasks' requests
    // are such requests; a server's ordinary traffic (UI, scripts, nodes between runs) is not.
    costs.push({
      ...(await onAndOff(
        'metrics and tracing, every request in a trace',
        { metrics: { enabled: true }, tracing: { endpoint: collector.endpoint } },
        { metrics: { enabled: false } },
        scrapeAndFlush,
        { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      )),
      target: 'none: a traced request makes and sends a span',
    });
    console.log(`the collector received ${await collector.spans()} spans`);
  } finally {
    collector.stop();
  }
}
// The same listing on both surfaces, cache off (a kept answer would hide the reshaping), alternated over rounds.
let v4Cost;
if (flag('v4') || only === 'v4') {
  const cpu = { three: [], four: [] };
  const paths = { three: `/api${TASK_PAGE}`, four: `/v4/api${TASK_PAGE}` };
  federa = await startFedera({ response_cache_mb: 0 });
  const origin = federa.base.replace(/\/api$/, '');
  for (let round = 1; round <= 3; round++) {
    for (const surface of round % 2 === 1 ? ['three', 'four'] : ['four', 'three']) {
      const what = `GET ${paths[surface]} (cache off, round ${round})`;
      console.log(`federa ${what}: ${duration}s…`);
      const r = await load(`${origin}${paths[surface]}`, auth);
      cpu[surface].push(r.cpuUs);
      report(`Federa ${what}`, r, bareResult);
    }
  }
  await stopFedera();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  v4Cost = { three: median(cpu.three), four: median(cpu.four) };
}
if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(profilePath, JSON.stringify(profile));
  profiler.disconnect();
  console.log(`CPU profile of the server side written to ${profilePath}`);
}
// 3. The hand-written minimum of the same task page on the same SQLite file (bench/lib/minimal-task-list.mjs): the
// floor of Fastify + better-sqlite3 for this answer, a second ceiling for the uncached figure.
let minimal;
if (
  !postgres &&
  only !== 'cached' &&
  only !== 'writes' &&
  only !== 'metrics' &&
  only !== 'tracing' &&
  only !== 'v4'
) {
  const server = await startMinimalTaskList(
    db.uri.replace(/^sqlite:\/\/\//, ''),
    'bench-secret-key-that-is-long-enough',
  );
  const answer = await (await fetch(`${server.base}${TASK_PAGE}`, { headers: auth })).text();
  if (taskListAnswer !== undefined && answer !== taskListAnswer)
    console.error(
      "[api-throughput] the hand-written minimum does not give Federa's answer: its figure is not comparable",
    );
  console.log(`hand-written minimum GET /api/task?page=1&per_page=10: ${duration}s…`);
  minimal = await load(`${server.base}${TASK_PAGE}`, auth);
  await server.close();
  report('hand-written minimum GET /api/task?page=1&per_page=10 (same answer)', minimal, bareResult);
}
await db.drop();
rmSync(dir, { recursive: true, force: true });

console.log(`\n${header}`);
console.table(results);
for (const cost of costs) {
  if (cost.attributed)
    console.log(
      `${cost.what}: their own code in ${cost.attributed.own} of the ${cost.attributed.busy} busy CPU samples of the server that is on (a profiled round): ${(cost.attributed.share * 100).toFixed(1)}%`,
    );
  console.log(
    `${cost.what}: ${cost.on.toFixed(1)} µs of server CPU per request on, ${cost.off.toFixed(1)} µs off (side by side, medians of 3 rounds): ${(((cost.on - cost.off) / cost.off) * 100).toFixed(1)}% more (target: ${cost.target ?? 'at most 3%'})`,
  );
}
if (v4Cost)
  console.log(
    `4.x surface: ${v4Cost.four.toFixed(1)} µs of server CPU per request for ${TASK_PAGE} at /v4/api, ${v4Cost.three.toFixed(1)} µs at /api (medians of 3 rounds): ${(((v4Cost.four - v4Cost.three) / v4Cost.three) * 100).toFixed(1)}% more (target: at most 10%)`,
  );
const uncached = results.find((r) => r.name.startsWith('Federa (cache off) GET /api/task'));
if (minimal && uncached)
  console.log(
    `uncached task page: Federa ${uncached['server CPU µs/req']} µs of server CPU per request, the hand-written minimum ${Math.round(minimal.cpuUs)} µs (${(uncached['server CPU µs/req'] / minimal.cpuUs).toFixed(2)}x)`,
  );
