// Servers of the benchmarks in their own processes (so that the load generator and the simulated nodes do not
// share a core's event loop with the server measured), their memory, and the database each one gets.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const instanceScript = fileURLToPath(new URL('./instance.mjs', import.meta.url));
const bareScript = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));
const PG_ADMIN = process.env.FEDERA_BENCH_PG ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const ROOT_PASSWORD = 'Bench-Root-1!';

/** `--name` given on the command line. */
export const flag = (name) => process.argv.includes(`--${name}`);

// Children left running when the benchmark ends (an error) are killed with it.
const children = new Set();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Starts `node script ...args`, which prints {"port": N} on its first line; resolves once it did. With
 * BENCH_CPU_PROF=<folder> in the environment, each such process writes a V8 CPU profile there when it stops.
 */
export function startScript(script, args = []) {
  return new Promise((resolve, reject) => {
    const prof = process.env.BENCH_CPU_PROF
      ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF]
      : [];
    const child = spawn(process.execPath, [...prof, script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    let out = '';
    const onExit = (code) => reject(new Error(`${script} exited ${code} before listening`));
    child.once('exit', onExit);
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      child.off('exit', onExit);
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      resolve({ child, port: JSON.parse(out.split('\n')[0]).port });
    });
  });
}

/** Stops a child (SIGTERM, SIGKILL after 5 s). */
export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(t);
}

/** CPU time (user + system, ms) a process has used so far (Linux). */
export function cpuMs(pid) {
  // /proc/<pid>/stat: the fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux's usual builds). */
const CLOCK_TICKS = 100;

/**
 * CPU time (ns) the threads of a process have run so far (Linux): the first field of each thread's
 * /proc/<pid>/task/<tid>/schedstat, summed. Nanoseconds where /proc/<pid>/stat counts 10 ms ticks, read from
 * outside, so the reading costs the process nothing. A thread that ended meanwhile drops out of the sum.
 */
export function threadsCpuNs(pid) {
  let sum = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // ended meanwhile
    }
  }
  return sum;
}

/**
 * CPU time (ms) used so far by every PostgreSQL server process of this machine (Linux; the processes named
 * `postgres`): on a machine where the bench is all that uses PostgreSQL, the database's share of the work.
 */
export function postgresCpuMs() {
  let sum = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') sum += cpuMs(pid);
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

/** Resident memory of a process in MB (Linux). */
export function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

/** The bare Fastify + socket.io ceiling (bare-server.mjs) in its own process. */
export async function startBare() {
  const bare = { url: '' };
  const start = async (port = 0) => {
    const { child, port: listening } = await startScript(bareScript, [String(port)]);
    Object.assign(bare, { child, port: listening, url: `http://127.0.0.1:${listening}` });
  };
  await start();
  bare.stop = () => stopChild(bare.child);
  bare.restart = async () => {
    await stopChild(bare.child);
    await start(bare.port);
  };
  return bare;
}

/**
 * A database for one run: a SQLite file in `dir`, or with `postgres` a new PostgreSQL database (FEDERA_BENCH_PG,
 * default postgresql://postgres@127.0.0.1:5432/postgres) dropped by `drop()`.
 */
export async function benchDatabase(dir, postgres) {
  if (!postgres)
    return { uri: `sqlite:///${join(dir, 'bench.sqlite')}`, label: 'SQLite', drop: async () => {} };
  const name = `federa_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return {
    uri: url.toString(),
    label: 'PostgreSQL',
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The keys of FEDERA_BENCH_CONFIG (a JSON object), or an error that says what is wrong with it. */
function benchConfigKeys() {
  const text = process.env.FEDERA_BENCH_CONFIG || '{}';
  let keys;
  try {
    keys = JSON.parse(text);
  } catch (e) {
    throw new Error(`FEDERA_BENCH_CONFIG is not JSON (${e.message}): ${text}`);
  }
  if (keys === null || typeof keys !== 'object' || Array.isArray(keys))
    throw new Error(`FEDERA_BENCH_CONFIG must be a JSON object of configuration keys, not ${text}`);
  return keys;
}

/**
 * Writes the configuration file of a benchmark server in `dir`: quiet logs, fast password hashing, `keys` on top,
 * then the keys of FEDERA_BENCH_CONFIG (JSON, top-level keys replaced whole) to compare a setting on and off, e.g.
 * `FEDERA_BENCH_CONFIG='{"database":{"prepared_statements":false}}'`.
 */
function writeConfig(dir, keys) {
  const configFile = join(dir, 'bench.yaml');
  const prod = {
    jwt_secret_key: 'bench-secret-key-that-is-long-enough',
    root_user: { email: 'root@example.org', password: ROOT_PASSWORD },
    bcrypt_rounds: 4,
    password_policy: { max_failed_attempts_per_address: 100000 },
    directories: { data: join(dir, 'data'), log: join(dir, 'log') },
    logging: { level: 'ERROR', use_console: false },
    ...keys,
    ...benchConfigKeys(),
  };
  writeFileSync(configFile, JSON.stringify({ application: {}, environments: { prod } }));
  return configFile;
}

/**
 * A Federa server (bench/lib/instance.mjs) in its own process with a configuration of its own in a temporary
 * directory: quiet logs, fast password hashing, `extra` keys on top. `restart()` starts it again on the same port
 * over the same database; `close()` stops it and removes the directory and the database.
 *
 * With `instances` > 1 (PostgreSQL only): that many instances on one database, connected through Redis
 * (FEDERA_BENCH_REDIS, default redis://127.0.0.1:6379, a channel of this run), behind nginx (round robin, the
 * balancer of @federa/testing); `url` and `api` are the balancer's, `rss()` adds the instances' memory.
 */
export async function startFederaProcess({ postgres = false, extra = {}, instances = 1 } = {}) {
  if (instances > 1) return startFederaCluster({ extra, instances });
  const dir = mkdtempSync(join(tmpdir(), 'federa-bench-'));
  const db = await benchDatabase(dir, postgres);
  const configFile = writeConfig(dir, { uri: db.uri, ...extra });
  const server = { dbLabel: db.label, configFile };
  const start = async (port = 0) => {
    const { child, port: listening } = await startScript(instanceScript, [configFile, String(port)]);
    Object.assign(server, { child, port: listening, url: `http://127.0.0.1:${listening}` });
    server.api = `${server.url}/api`;
  };
  await start();
  server.rss = () => rssMb(server.child.pid);
  server.cpuMs = () => cpuMs(server.child.pid);
  server.stop = () => stopChild(server.child);
  server.restart = async () => {
    await stopChild(server.child);
    await start(server.port);
  };
  server.close = async () => {
    await stopChild(server.child);
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  return server;
}

async function startFederaCluster({ extra, instances }) {
  const { startBalancer } = await import('@federa/testing');
  const dir = mkdtempSync(join(tmpdir(), 'federa-bench-'));
  const db = await benchDatabase(dir, true);
  const redis = process.env.FEDERA_BENCH_REDIS ?? 'redis://127.0.0.1:6379';
  const channel = `federa-bench-${randomBytes(4).toString('hex')}`;
  const configFile = writeConfig(dir, {
    uri: db.uri,
    message_broker: `${redis}?channel=${channel}`,
    ...extra,
  });
  const started = [];
  // One after the other: the first migrates the database and creates the root user.
  for (let i = 0; i < instances; i++) started.push(await startScript(instanceScript, [configFile, '0']));
  const balancer = await startBalancer({
    dir: join(dir, 'nginx'),
    upstreams: started.map((s) => s.port),
    // Users, node sockets and their requests, each held on both sides of nginx.
    workerConnections: 16384,
  });
  const stopAll = async () => {
    await balancer.stop();
    await Promise.all(started.map((s) => stopChild(s.child)));
  };
  return {
    dbLabel: `PostgreSQL, ${instances} instances behind nginx with Redis`,
    url: balancer.url,
    api: `${balancer.url}/api`,
    rss: () => started.reduce((sum, s) => sum + rssMb(s.child.pid), 0),
    cpuMs: () => started.reduce((sum, s) => sum + cpuMs(s.child.pid), 0),
    stop: stopAll,
    close: async () => {
      await stopAll();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The first lines of a benchmark's report: what ran, where, and how loaded the machine was. */
export function machineHeader(title) {
  const [one] = loadavg();
  return [
    title,
    `node ${process.version}, load average ${one.toFixed(2)} when it started (other work on this machine lowers ` +
      'every figure; a quiet machine gives higher ones)',
  ].join('\n');
}
