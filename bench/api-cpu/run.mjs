#!/usr/bin/env node
// Benchmark: the server's CPU time per request of configurations compared with a ceiling, in interleaved rounds.
// Each configuration's server runs in a process of its own, all at once; round after round each is sent the same
// number of requests in turn (the one that starts a round changes each round) by a load generator in a process of
// its own, and the server's CPU time over its turn is read from /proc (all its threads, in ns). Drift in the
// machine's load falls on the rounds of every configuration alike, and the ratio of two configurations is taken
// round by round, where that drift cancels. Needs `npx tsc --build` first.
//   node bench/api-cpu/run.mjs [--only tracing|v4] [--rounds 200] [--generations 4] [--warmup 20]
//     [--requests N] [--connections 4] [--json rounds.json] [--no-pin]
// tracing: the cached GET /api/organization/{id} (the cheapest request, where recording it weighs most) on four
//   servers: metrics off, a second one the same (the control: what the method gives for no difference), metrics
//   on, metrics and tracing on; ceiling 3% more.
// v4: the task page GET /task?page=1&per_page=10 at /api and /v4/api (vantage6 4.x's items) on one server with
//   the read cache off, and /api once more as the control; ceiling 10% more.
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  median,
  meanRatio,
  pairedRatio,
  percentMore,
  perRequestUs,
  quantile,
  roundOrder,
  verdict,
} from '../lib/cpu-stats.mjs';
import { apiCaller, numberOption, seedFederation } from '../lib/load.mjs';
import { threadsCpuNs } from '../lib/processes.mjs';
import { startCollector } from '../lib/otlp-collector.mjs';
import { startApp } from '../lib/side-by-side.mjs';

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
if (only !== undefined && only !== 'tracing' && only !== 'v4')
  throw new Error(`--only takes tracing or v4 (not ${only})`);
const rounds = numberOption('rounds', 200);
const warmup = numberOption('warmup', 20);
const generations = numberOption('generations', 4);
const connections = numberOption('connections', 4);
const TASK_PAGE = '/task?page=1&per_page=10';
const loadAtStart = loadavg()[0];
// Every server on one core and the load generator on the other (taskset, all threads): where the scheduler puts a
// process, beside the generator or not, moves its CPU per request, and two identical servers left to it differed
// by up to 40%. `--no-pin` leaves them free.
const pinned = !process.argv.includes('--no-pin');
const pin = (pid, cpu) => {
  if (pinned) execFileSync('taskset', ['-a', '-cp', String(cpu), String(pid)], { stdio: 'ignore' });
};

// The load generator.
const driver = fork(fileURLToPath(new URL('./driver.mjs', import.meta.url)), [], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
await new Promise((resolve) => driver.once('message', resolve));
pin(driver.pid, 1);
const drive = (url, headers, requests) =>
  new Promise((resolve) => {
    driver.once('message', resolve);
    driver.send({ url, headers, requests, connections });
  });

// One seeded SQLite file; each server works on a copy of its own.
const dir = mkdtempSync(join(tmpdir(), 'federa-api-cpu-'));
const seedFile = join(dir, 'bench.sqlite');
const seeder = await startApp(null, `sqlite:///${seedFile}`, {});
const { token, orgs } = await seedFederation(apiCaller(seeder.base), 'Bench-Root-1!');
await seeder.stop();
const headers = { authorization: `Bearer ${token}` };

/**
 * Measures the configurations that `start()` gives ({configs: [{name, app, path}], stop}) in interleaved rounds of
 * `requests` each, on `generations` sets of servers started afresh one after the other (a process's own luck, the
 * code its compiler happened to make, is then not all of a configuration's figure); `between(round)` runs after
 * each round, outside the measured turns. Resolves with each configuration's µs per request, round by round.
 */
async function interleaved(start, requests, between) {
  const us = {};
  let failed = 0;
  const perGeneration = Math.ceil(rounds / generations);
  for (let g = 0; g < generations; g++) {
    const { configs, stop } = await start(g);
    for (const c of configs) us[c.name] ??= [];
    try {
      for (let round = 0; round < warmup + perGeneration; round++) {
        for (const c of roundOrder(configs, round)) {
          const before = threadsCpuNs(c.app.pid);
          const r = await drive(`${c.app.origin}${c.path}`, headers, requests);
          const used = threadsCpuNs(c.app.pid) - before;
          failed += r.failed;
          if (round >= warmup) us[c.name].push(...perRequestUs([used], [r.answered]));
        }
        await between?.(configs, round);
        if ((round + 1) % 25 === 0)
          console.log(
            `  servers ${g + 1} of ${generations}: round ${round + 1} of ${warmup + perGeneration}`,
          );
      }
    } finally {
      await stop();
    }
  }
  if (failed > 0) console.error(`[api-cpu] ${failed} requests were not answered with 2xx`);
  return us;
}

/** A server with the configuration keys `extra` over a copy of the seeded file, pinned to the servers' core. */
async function server(extra) {
  const app = await startApp(seedFile, null, extra);
  pin(app.pid, 0);
  return { ...app, origin: app.base.replace(/\/api$/, '') };
}

const lines = [];
const table = [];
/** Every round's figures, written to `--json FILE` when given. */
const raw = {};
/** The figures of one part: each configuration's median µs per request, and each comparison's ratio and verdict. */
function report(title, us, comparisons) {
  raw[title] = us;
  for (const [name, xs] of Object.entries(us))
    table.push({
      part: title,
      configuration: name,
      'median µs/req': median(xs).toFixed(1),
      'quartiles µs/req': `${quantile(xs, 0.25).toFixed(1)}–${quantile(xs, 0.75).toFixed(1)}`,
    });
  for (const [base, other, ceiling] of comparisons) {
    const r = pairedRatio(us[base], us[other], { sets: generations });
    const figure =
      `${percentMore(r.ratio)} (95% interval ${percentMore(r.low)} to ${percentMore(r.high)}, ${r.rounds} paired rounds of ${generations} sets of servers; ` +
      `all rounds' means: ${percentMore(meanRatio(us[base], us[other]))})`;
    lines.push(
      ceiling === undefined
        ? `${title}: ${other} against ${base} (the control, the same configuration twice): ${figure}`
        : `${title}: ${other} against ${base}: ${figure}; ceiling +${ceiling * 100}%: ${verdict(r, ceiling)}`,
    );
  }
}

if (only === undefined || only === 'tracing') {
  const requests = numberOption('requests', 1000);
  console.log(
    `tracing: 4 servers, ${generations} × (${warmup} + ${Math.ceil(rounds / generations)}) rounds of ${requests} GET /api/organization/{id} each…`,
  );
  const collector = await startCollector();
  const path = `/api/organization/${orgs[0]}`;
  const settings = {
    off: { metrics: { enabled: false } },
    'off (control)': { metrics: { enabled: false } },
    metrics: { metrics: { enabled: true } },
    'metrics and tracing': { metrics: { enabled: true }, tracing: { endpoint: collector.endpoint } },
  };
  // Each set of servers starts in another order, so that the place a server started in is in no one figure.
  const start = async (generation) => {
    const apps = {};
    for (const name of roundOrder(Object.keys(settings), generation))
      apps[name] = await server(settings[name]);
    return {
      configs: Object.keys(settings).map((name) => ({ name, app: apps[name], path })),
      stop: () => Promise.all(Object.values(apps).map((a) => a.stop())),
    };
  };
  // One scrape of each server that has metrics, as Prometheus makes them, after the first warm-up round: what a
  // first scrape sets up and leaves behind is done before the measured rounds. Scrapes themselves are not
  // measured: a scrape costs per scrape, not per request (docs/observability.md#cost).
  const scrape = async (configs, round) => {
    if (round !== 0) return;
    for (const { name, app } of configs.filter((c) => c.name.startsWith('metrics'))) {
      const r = await drive(`${app.origin}/metrics`, {}, 1);
      if (r.answered !== 1) console.error(`[api-cpu] the metrics of ${name} did not answer 200`);
    }
  };
  try {
    const us = await interleaved(start, requests, scrape);
    report('GET /api/organization/{id} (read cache on)', us, [
      ['off', 'off (control)'],
      ['off', 'metrics', 0.03],
      ['off', 'metrics and tracing', 0.03],
    ]);
  } finally {
    collector.stop();
  }
}

if (only === undefined || only === 'v4') {
  const requests = numberOption('requests', 200);
  console.log(
    `v4: 1 server (read cache off), ${generations} × (${warmup} + ${Math.ceil(rounds / generations)}) rounds of ${requests} task pages each…`,
  );
  const start = async () => {
    const app = await server({ response_cache_mb: 0 });
    return {
      configs: [
        { name: '3.x /api', app, path: `/api${TASK_PAGE}` },
        { name: '4.x /v4/api', app, path: `/v4/api${TASK_PAGE}` },
        { name: '3.x /api (control)', app, path: `/api${TASK_PAGE}` },
      ],
      stop: () => app.stop(),
    };
  };
  const us = await interleaved(start, requests);
  report(`GET ${TASK_PAGE} (read cache off)`, us, [
    ['3.x /api', '3.x /api (control)'],
    ['3.x /api', '4.x /v4/api', 0.1],
  ]);
}
driver.disconnect();
rmSync(dir, { recursive: true, force: true });

console.log(
  `\nServer CPU time per request, interleaved rounds (${connections} connections; node ${process.version}; ` +
    `load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end)`,
);
console.table(table);
const jsonIndex = process.argv.indexOf('--json');
if (jsonIndex > 0) writeFileSync(process.argv[jsonIndex + 1], JSON.stringify(raw));
for (const line of lines) console.log(line);
