// An open-loop load generator for the benchmarks: requests sent on a fixed schedule (a given rate), whether or not
// earlier ones have been answered, each one's latency counted from the time it was due, not from the time it went
// out, so that a slow server or a late generator cannot hide queueing ("coordinated omission"; docs/performance.md).
// The schedule can be split over several processes (`startWorkers`), each taking every n-th slot.
import { fork } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** Milliseconds since the epoch, sub-millisecond, comparable between the processes of one machine. */
export const epochNow = () => performance.timeOrigin + performance.now();

/**
 * `--rate`: undefined when absent (the closed loop), 'auto', or a positive number of requests per second; anything
 * else is an error naming the option.
 */
export function rateOption(argv = process.argv) {
  const i = argv.indexOf('--rate');
  if (i < 0) return undefined;
  const v = argv[i + 1];
  if (v === 'auto') return 'auto';
  const n = Number(v);
  if (v === undefined || !Number.isFinite(n) || n <= 0)
    throw new Error(`--rate takes "auto" or a number of requests per second above 0, not ${v ?? 'nothing'}`);
  return n;
}

/** A send later than this after its slot counts as late. */
export const LATE_MS = 2;

/**
 * Sends on the slots `offset`, `offset + every`, … of a schedule of `rate` requests per second from `startAt`
 * (epoch ms) for `seconds`. `send(i, at)` starts the request of slot `i` due at `at` (epoch ms) and must not wait
 * for its answer. Every slot of the window is sent, late if the generator was held up (a slot is never dropped:
 * its lateness counts in its latency). Resolves with the schedule's figures: slots scheduled and sent, sent late
 * (> LATE_MS), and the lateness p99/max.
 */
export function runSchedule({ rate, startAt, seconds, offset = 0, every = 1, send }) {
  const period = 1000 / rate;
  const end = startAt + seconds * 1000;
  const lateness = [];
  let scheduled = 0;
  for (let j = offset; startAt + j * period < end; j += every) scheduled += 1;
  let i = offset;
  return new Promise((resolve) => {
    const finish = () => {
      lateness.sort((a, b) => a - b);
      resolve({
        scheduled,
        sent: lateness.length,
        late: lateness.filter((l) => l > LATE_MS).length,
        lateP99: percentile(lateness, 0.99),
        lateMax: lateness.at(-1) ?? 0,
      });
    };
    const tick = () => {
      for (;;) {
        const at = startAt + i * period;
        if (at >= end) return finish();
        const now = epochNow();
        if (at > now) break;
        lateness.push(now - at);
        send(i, at);
        i += every;
      }
      setTimeout(tick, Math.max(0, startAt + i * period - epochNow()));
    };
    setTimeout(tick, Math.max(0, startAt + i * period - epochNow()));
  });
}

/**
 * One HTTP request through `agent` (a keep-alive pool: a user's own connections, as a browser holds; requests wait
 * there when all are busy, and that wait counts in their latency); resolves with the status and the body's text.
 */
export function httpText(url, { agent, method = 'GET', headers = {}, body, signal } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method,
        agent,
        signal,
        headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The `p` quantile (0..1) of sorted `xs` (nearest rank below), 0 for none. */
export const percentile = (xs, p) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] : 0);

/** Latencies (ms) and failures per route; `toJSON()` for a report over IPC, `merge()` to add such reports. */
export class Latencies {
  latencies = {};
  failures = {};
  /** Of the failures, those given up on: no answer within the grace period after the window. */
  unanswered = 0;
  messages = [];
  record(route, ms) {
    (this.latencies[route] ??= []).push(ms);
  }
  fail(route, error, { unanswered = false } = {}) {
    this.failures[route] = (this.failures[route] ?? 0) + 1;
    if (unanswered) this.unanswered += 1;
    else if (this.messages.length < 3) this.messages.push(`${route}: ${error?.message ?? error}`);
  }
  /** How many answers were recorded, over all routes. */
  count() {
    return Object.values(this.latencies).reduce((n, xs) => n + xs.length, 0);
  }
  toJSON() {
    const { latencies, failures, unanswered, messages } = this;
    return { latencies, failures, unanswered, messages };
  }
  merge(report) {
    for (const [route, xs] of Object.entries(report.latencies)) for (const x of xs) this.record(route, x);
    for (const [route, n] of Object.entries(report.failures))
      this.failures[route] = (this.failures[route] ?? 0) + n;
    this.unanswered += report.unanswered;
    for (const m of report.messages) if (this.messages.length < 3) this.messages.push(m);
    return this;
  }
  /**
   * One row per route (answers per second over `seconds`, p50, p99, failures), sorted by name; `all`; and a row
   * for each of `groups` ({ name: (route) => boolean }), the routes it takes together.
   */
  rows(seconds, groups = {}) {
    const r1 = (x) => Math.round(x * 10) / 10;
    const row = (name, routes) => {
      const xs = routes.flatMap((r) => this.latencies[r] ?? []).sort((a, b) => a - b);
      return {
        route: name,
        'req/s': Math.round(xs.length / seconds),
        'p50 ms': r1(percentile(xs, 0.5)),
        'p99 ms': r1(percentile(xs, 0.99)),
        failures: routes.reduce((n, r) => n + (this.failures[r] ?? 0), 0),
      };
    };
    const routes = [...new Set([...Object.keys(this.latencies), ...Object.keys(this.failures)])].sort();
    return {
      rows: routes.map((r) => row(r, [r])),
      groups: Object.entries(groups).map(([name, test]) => row(name, routes.filter(test))),
      all: row('all', routes),
      rps: this.count() / seconds,
    };
  }
}

/**
 * This process's own health while it generates load (or, in bench/lib/loop-watch.mjs, serves it): event-loop lag
 * (how late a timer of `resolution` ms fires, p50/p99/max ms) and CPU use (% of one core). `start()` then `stop()`.
 */
export function generatorHealth({ resolution = 2 } = {}) {
  const h = monitorEventLoopDelay({ resolution });
  let cpu0;
  let t0;
  return {
    start() {
      h.reset();
      h.enable();
      cpu0 = process.cpuUsage();
      t0 = performance.now();
    },
    stop() {
      h.disable();
      const cpu = process.cpuUsage(cpu0);
      const wall = performance.now() - t0;
      // The histogram holds the timer's whole interval; the lag is what comes on top of `resolution`.
      const lag = (ns) => Math.max(0, Math.round((ns / 1e6 - resolution) * 10) / 10);
      return {
        lagP50: lag(h.percentile(50)),
        lagP99: lag(h.percentile(99)),
        lagMax: lag(h.max),
        cpuPct: Math.round(((cpu.user + cpu.system) / 1000 / wall) * 100),
      };
    },
  };
}

/**
 * `count` processes of `script`, each answering IPC commands `{ cmd, ...args }` with `{ cmd, ok: true, ... }` or
 * `{ cmd, error }` (one command at a time per process). `all(cmd, argsOf(i))` asks every process and resolves
 * with their answers; `kill()` ends them.
 */
export async function startWorkers(script, count) {
  const workers = Array.from({ length: count }, () => {
    const proc = fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let waiting = null;
    const ready = new Promise((resolve, reject) => {
      waiting = { resolve, reject };
    });
    proc.on('message', (msg) => {
      const w = waiting;
      waiting = null;
      if (!w) return;
      if (msg.error) w.reject(new Error(`${script} ${msg.cmd}: ${msg.error}`));
      else w.resolve(msg);
    });
    proc.once('exit', (code) => waiting?.reject(new Error(`${script} exited ${code}`)));
    const ask = (cmd, args) =>
      new Promise((resolve, reject) => {
        waiting = { resolve, reject };
        proc.send({ cmd, ...args });
      });
    return { proc, ready, ask };
  });
  await Promise.all(workers.map((w) => w.ready));
  process.once('exit', () => workers.forEach((w) => w.proc.kill('SIGKILL')));
  return {
    count,
    all: (cmd, argsOf = () => ({})) => Promise.all(workers.map((w, i) => w.ask(cmd, argsOf(i)))),
    kill: () => workers.forEach((w) => w.proc.kill('SIGKILL')),
  };
}
