#!/usr/bin/env node
// Benchmark: the machine instructions the server executes per request, metrics and tracing on against off, with
// the ceiling (3% more). CPU time on a shared machine moves with the other load, the scheduler and each process's
// luck; a count of instructions does not: each server runs under valgrind's callgrind, which counts every
// instruction of every thread of the process (the main thread, the garbage collector's and the compiler's helpers),
// whatever else the machine does. Needs `npx tsc --build` first, and valgrind (Debian's `valgrind`).
//   node bench/api-instructions/run.mjs [--requests 1000] [--windows 5] [--processes 2] [--warmup 20000]
//     [--idle-ms 3000] [--connections 4] [--json figures.json]
// Each configuration's server is started `--processes` times afresh under callgrind, loaded `--warmup` requests
// (compiled, read cache filled; the servers with metrics scraped once), then measured over `--windows` windows of
// `--requests` cached GET /api/organization/{id}: callgrind's counters are zeroed before a window and dumped after
// it (callgrind_control), and the window's figure is its instructions over its requests.
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, percentMore } from '../lib/cpu-stats.mjs';
import { apiCaller, numberOption, seedFederation } from '../lib/load.mjs';
import { startCollector } from '../lib/otlp-collector.mjs';
import { startApp } from '../lib/side-by-side.mjs';

const requests = numberOption('requests', 1000);
const windows = numberOption('windows', 5);
const processes = numberOption('processes', 2);
const warmup = numberOption('warmup', 20000);
const idleMs = numberOption('idle-ms', 3000);
// One connection: each request finds the server idle and has an event-loop turn of its own, however fast the load
// generator runs. With several, requests that arrive together share a turn, and how many do depends on how busy
// the machine is: four connections gave 124,000 and 158,000 instructions per request to the same server.
const connections = numberOption('connections', 1);
const CEILING = 0.03;

try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
}

const driver = fork(fileURLToPath(new URL('../api-cpu/driver.mjs', import.meta.url)), [], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
await new Promise((resolve) => driver.once('message', resolve));
const drive = (url, headers, count) =>
  new Promise((resolve) => {
    driver.once('message', resolve);
    driver.send({ url, headers, requests: count, connections });
  });

const dir = mkdtempSync(join(tmpdir(), 'federa-api-instructions-'));
const seedFile = join(dir, 'bench.sqlite');
const seeder = await startApp(null, `sqlite:///${seedFile}`, {});
const { token, orgs } = await seedFederation(apiCaller(seeder.base), 'Bench-Root-1!');
await seeder.stop();
const headers = { authorization: `Bearer ${token}` };
const path = `/api/organization/${orgs[0]}`;

const collector = await startCollector();
const settings = {
  off: { metrics: { enabled: false } },
  'off (control)': { metrics: { enabled: false } },
  metrics: { metrics: { enabled: true } },
  'metrics and tracing': { metrics: { enabled: true }, tracing: { endpoint: collector.endpoint } },
};

/**
 * callgrind_control's `command` (-z zero, -d dump, -i on|off) to the valgrind process `pid`; returns once it is
 * done.
 */
const control = (command, pid, ...args) =>
  execFileSync('callgrind_control', [command, ...args, String(pid)], { stdio: 'ignore' });

/**
 * The instructions of the newest dump of process `pid` in `out` (callgrind numbers its dumps `.1`, `.2`, …); those
 * of them in V8's optimizing compiler (what is still being compiled is warm-up, not the request's own cost); and
 * those under V8's runtime function that defines an object literal's computed keys one by one.
 */
function lastDump(out, pid) {
  const dumps = readdirSync(out)
    .filter((f) => f.startsWith(`callgrind.${pid}.`))
    .map((f) => Number(f.split('.').pop()))
    .sort((a, b) => b - a);
  const file = join(out, `callgrind.${pid}.${dumps[0]}`);
  const totals = /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!totals) throw new Error(`callgrind's dump of ${pid} has no totals line`);
  const annotate = (inclusive) =>
    execFileSync('callgrind_annotate', [`--inclusive=${inclusive}`, '--threshold=100', file], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    }).split('\n');
  const count = (line) => Number(line.trim().split(/\s/)[0].replaceAll(',', ''));
  let compiler = 0;
  for (const line of annotate('no')) if (line.includes('v8::internal::compiler::')) compiler += count(line);
  const literal = annotate('yes').find((line) => line.includes('Runtime_DefineKeyedOwnPropertyInLiteral('));
  return { total: Number(totals[1]), compiler, literal: literal ? count(literal) : 0 };
}

const perRequest = {};
const idlePerSecond = {};
const compilerShare = {};
/** Each server process: its configuration, its kind (below) and the median of its windows. */
const processFigures = [];
/** Instructions per request under V8's runtime definition of literals' computed keys that mark a process apart. */
const LITERAL_SLOW_PATH = 10000;
let failed = 0;
const started = Date.now();
console.log(
  `${Object.keys(settings).length} configurations × ${processes} processes under callgrind: ${warmup} requests of warm-up, ` +
    `then ${windows} windows of ${requests} GET /api/organization/{id}…`,
);
for (let p = 0; p < processes; p++) {
  // Each round of processes takes the configurations in another order.
  const names = Object.keys(settings);
  const order = p % 2 === 0 ? names : [...names].reverse();
  for (const name of order) {
    const out = join(dir, 'callgrind');
    // Uncounted until the warm-up is done: callgrind then runs the process several times faster.
    const wrap = [
      'valgrind',
      '--tool=callgrind',
      '--quiet',
      '--instr-atstart=no',
      `--callgrind-out-file=${out}/callgrind.%p`,
    ];
    mkdirSync(out, { recursive: true });
    const app = await startApp(seedFile, null, settings[name], wrap);
    const url = `${app.base.replace(/\/api$/, '')}${path}`;
    try {
      // A first scrape changes what the compiler knows of the request path's shapes, and what it compiled is thrown
      // away and compiled again: it comes early in the warm-up, as Prometheus's first scrape comes early in a
      // server's life.
      const first = await drive(url, headers, 2000);
      failed += first.failed;
      if (name.startsWith('metrics')) {
        const scraped = await drive(`${app.base.replace(/\/api$/, '')}/metrics`, {}, 1);
        if (scraped.answered !== 1)
          console.error(`[api-instructions] the metrics of ${name} did not answer 200`);
      }
      const warm = await drive(url, headers, warmup);
      failed += warm.failed;
      control('-i', app.pid, 'on');
      // What the process executes with no request at all, per second: its timers (the event loop's delay monitor
      // of the metrics, Node's own). Under callgrind a request takes a hundred times longer than natively, so this
      // weighs a hundredfold on each request's figure: it is taken out of every window, and printed apart.
      control('-z', app.pid);
      const idleFrom = performance.now();
      await new Promise((resolve) => setTimeout(resolve, idleMs));
      control('-d', app.pid);
      const idleRate = lastDump(out, app.pid).total / ((performance.now() - idleFrom) / 1000);
      (idlePerSecond[name] ??= []).push(idleRate);
      perRequest[name] ??= [];
      const literalPerRequest = [];
      for (let w = 0; w < windows; w++) {
        control('-z', app.pid);
        const from = performance.now();
        const r = await drive(url, headers, requests);
        control('-d', app.pid);
        const seconds = (performance.now() - from) / 1000;
        failed += r.failed;
        const { total, compiler, literal } = lastDump(out, app.pid);
        perRequest[name].push((total - idleRate * seconds) / r.answered);
        (compilerShare[name] ??= []).push(compiler / total);
        literalPerRequest.push(literal / r.answered);
      }
      // Node's process.nextTick makes its task objects with computed keys; in some processes V8 settles on defining
      // those keys through its runtime, one by one, for good (seen: about 34,000 instructions more per request, the
      // same in every window of the process, whatever the configuration). Such a process is told apart, and
      // configurations are compared among processes of the same kind.
      const mode = median(literalPerRequest) > LITERAL_SLOW_PATH ? 'slow nextTick' : 'usual';
      const xs = perRequest[name].slice(-windows);
      processFigures.push({ name, mode, perRequest: median(xs) });
      console.log(
        `  ${name}, process ${p + 1} of ${processes} (${mode}): ${xs
          .map((x) => Math.round(x).toLocaleString('en'))
          .join(', ')} instructions per request (${Math.round((Date.now() - started) / 1000)} s)`,
      );
    } finally {
      await app.stop();
    }
  }
}
collector.stop();
driver.disconnect();
rmSync(dir, { recursive: true, force: true });
if (failed > 0) console.error(`[api-instructions] ${failed} requests were not answered with 2xx`);

const fmt = (x) => Math.round(x).toLocaleString('en');
const table = Object.entries(perRequest).map(([name, xs]) => ({
  configuration: name,
  'processes (usual, slow nextTick)': `${processFigures.filter((f) => f.name === name && f.mode === 'usual').length}, ${processFigures.filter((f) => f.name === name && f.mode !== 'usual').length}`,
  'windows: median instructions/req': fmt(median(xs)),
  'windows: range': `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`,
  'idle instructions/s': fmt(median(idlePerSecond[name])),
  'in the compiler (median, max)': `${(median(compilerShare[name]) * 100).toFixed(1)}%, ${(Math.max(...compilerShare[name]) * 100).toFixed(1)}%`,
}));
console.log(
  `\nServer instructions per request under callgrind (node ${process.version}, ${connections} connection(s), ` +
    `${processes} processes × ${windows} windows of ${requests} requests per configuration)`,
);
console.table(table);
// Per kind of process, each configuration against off: the median of its processes' figures (each the median of
// its windows) over off's, and the widest reading, its dearest process against off's cheapest and the other way
// round. The control's line is what the method gives for no difference at all.
const verdicts = [];
for (const mode of ['usual', 'slow nextTick']) {
  const of = (name) =>
    processFigures.filter((f) => f.name === name && f.mode === mode).map((f) => f.perRequest);
  const base = of('off');
  if (base.length === 0) continue;
  for (const name of Object.keys(settings).filter((n) => n !== 'off')) {
    const xs = of(name);
    if (xs.length === 0) continue;
    const ratio = median(xs) / median(base);
    const low = Math.min(...xs) / Math.max(...base);
    const high = Math.max(...xs) / Math.min(...base);
    let judged = '(the control, the same configuration twice)';
    if (name !== 'off (control)') {
      const v = high <= 1 + CEILING ? 'PASS' : low > 1 + CEILING ? 'FAIL' : 'UNDECIDED';
      verdicts.push(v);
      judged = `ceiling +${CEILING * 100}%: ${v}`;
    }
    console.log(
      `${mode} processes: ${name} against off: ${percentMore(ratio)} (${xs.length} against ${base.length} processes; ` +
        `widest: ${percentMore(low)} to ${percentMore(high)}); ${judged}`,
    );
  }
}
const overall = verdicts.includes('FAIL')
  ? 'FAIL'
  : verdicts.every((v) => v === 'PASS') && verdicts.length > 0
    ? 'PASS'
    : 'UNDECIDED';
console.log(`metrics and tracing, ceiling +${CEILING * 100}% instructions per request: ${overall}`);
const jsonIndex = process.argv.indexOf('--json');
if (jsonIndex > 0)
  writeFileSync(
    process.argv[jsonIndex + 1],
    JSON.stringify({ windows: perRequest, processes: processFigures }),
  );
