// Two configurations of Federa measured side by side: each in a process of its own (app-process.mjs) over its own
// copy of the same SQLite file, both loaded at the same time by an autocannon each, started afresh each round. Whatever else runs on the
// machine falls on both alike, which taking them one after the other does not promise on a shared machine (there,
// rounds of one configuration differed by more than the difference sought).
import { fork } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cannon } from './load.mjs';

const script = fileURLToPath(new URL('./app-process.mjs', import.meta.url));

/**
 * One app in its own process, over a copy of `sqliteFile` (or the database `uri`, PostgreSQL); `pid` is its
 * process's, `ask(message, key)` resolves with the answer's `key`. `wrap` ([program, ...its arguments]) runs the
 * app's Node under that program, which must exec it in the same process (valgrind does).
 */
export async function startApp(sqliteFile, uri, extra, wrap = null) {
  const dir = mkdtempSync(join(tmpdir(), 'federa-side-'));
  const file = join(dir, 'bench.sqlite');
  if (sqliteFile) copyFileSync(sqliteFile, file);
  const own = sqliteFile ? `sqlite:///${file}` : uri;
  // BENCH_CPU_PROF=<folder>: each app writes a V8 CPU profile there when it stops (as processes.mjs's do).
  const prof = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : [];
  const child = fork(script, [JSON.stringify({ uri: own, dataDir: dir, extra })], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...(wrap
      ? { execPath: wrap[0], execArgv: [...wrap.slice(1), process.execPath, ...prof] }
      : { execArgv: prof }),
  });
  const ask = (message, key) =>
    new Promise((resolve, reject) => {
      const onMessage = (m) => {
        if (m && key in m) {
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve(m[key]);
        }
      };
      const onExit = (code) => reject(new Error(`the app process exited ${code}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (message !== null) child.send(message);
    });
  const port = await ask(null, 'port');
  return {
    pid: child.pid,
    base: `http://127.0.0.1:${port}/api`,
    cpu: () => ask('cpu', 'cpu'),
    ask,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.send('stop');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Loads `path` on an app with `onConfig` and one with `offConfig`, at the same time, for `rounds` rounds of
 * `duration` seconds; `afterRound(app)` runs on the app that is on after each round (a scrape, a flush). Resolves
 * with each round's figures per side: requests per second, latency, failures and µs of server CPU per request;
 * with `attribute`, also `attributed` (see below).
 */
export async function sideBySide({
  sqliteFile,
  uri,
  onConfig,
  offConfig,
  path,
  headers,
  duration,
  connections,
  rounds,
  afterRound,
  attribute,
}) {
  const results = [];
  for (let round = 1; round <= rounds; round++) {
    // Which of the two starts first, and is loaded first, changes from round to round (a process's place was seen to
    // weigh on its figures).
    const order = round % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
    const apps = {};
    for (const side of order)
      apps[side] = await startApp(sqliteFile, uri, side === 'on' ? onConfig : offConfig);
    try {
      // Both warmed up (compiled, read cache filled) before the measured load.
      const warm = { headers, duration: Math.min(duration, 2), connections };
      await Promise.all(order.map((side) => cannon(`${apps[side].base}${path}`, warm)));
      const cpuBefore = { on: await apps.on.cpu(), off: await apps.off.cpu() };
      const loads = {};
      for (const side of order)
        loads[side] = cannon(`${apps[side].base}${path}`, { headers, duration, connections });
      const [on, off] = await Promise.all([loads.on, loads.off]);
      const used = { on: (await apps.on.cpu()) - cpuBefore.on, off: (await apps.off.cpu()) - cpuBefore.off };
      await afterRound?.(apps.on);
      results.push({
        round,
        on: { ...on, cpuUs: on.total > 0 ? used.on / on.total : NaN },
        off: { ...off, cpuUs: off.total > 0 ? used.off / off.total : NaN },
      });
    } finally {
      await Promise.all([apps.on?.stop(), apps.off?.stop()]);
    }
  }
  // A round more, the app that is on alone and profiled: the share of its CPU samples in the code that `attribute`
  // names (a regular expression of functions' names and files). Read within one process, it does not depend on what
  // else the machine does, as the two processes' CPU times do.
  if (attribute) {
    const app = await startApp(sqliteFile, uri, onConfig);
    try {
      // Warmed up (and scraped) as the measured rounds were, before the profiled load.
      await cannon(`${app.base}${path}`, { headers, duration: Math.min(duration, 2), connections });
      await afterRound?.(app);
      await app.ask('profile', 'profiling');
      await cannon(`${app.base}${path}`, { headers, duration, connections });
      const { busy, own } = await app.ask({ attribute }, 'attributed');
      results.attributed = { busy, own, share: busy > 0 ? own / busy : NaN };
    } finally {
      await app.stop();
    }
  }
  return results;
}
