#!/usr/bin/env node
// Benchmark: Federa API throughput with one and with two instances behind nginx, on one machine, on PostgreSQL,
// the instances connected through Redis (message_broker). Each instance is its own process; autocannon too.
// Prints req/s, p50/p99 latency per setup and the two-to-one ratio. Needs `npx tsc --build` first, PostgreSQL
// (FEDERA_BENCH_PG, default postgresql://postgres@127.0.0.1:5432/postgres), Redis (FEDERA_BENCH_REDIS, default
// redis://127.0.0.1:6379) and nginx (/usr/sbin/nginx; Debian: apt-get install nginx-light).
//   node bench/api-throughput-instances/run.mjs [--duration 10] [--connections 20]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { apiCaller, cannon, numberOption, seedFederation } from '../lib/load.mjs';

const duration = numberOption('duration', 10);
const connections = numberOption('connections', 20);
const PG_ADMIN = process.env.FEDERA_BENCH_PG ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.FEDERA_BENCH_REDIS ?? 'redis://127.0.0.1:6379';
const NGINX = process.env.FEDERA_NGINX ?? '/usr/sbin/nginx';
const instanceScript = fileURLToPath(new URL('../lib/instance.mjs', import.meta.url));
const ROOT_PASSWORD = 'Bench-Root-1!';

const children = new Set();
const cleanups = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

const accepting = (port) =>
  new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** Starts an instance process; resolves with its port. */
function startInstance(configFile) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [instanceScript, configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(p);
    p.on('exit', () => children.delete(p));
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        try {
          resolve({ port: JSON.parse(line).port, process: p });
        } catch (e) {
          reject(e);
        }
      }
    });
    p.once('exit', (code) => reject(new Error(`instance exited ${code}`)));
  });
}

async function stopProcess(p, signal = 'SIGTERM') {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill(signal);
  const t = setTimeout(() => p.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(t);
}

/** nginx in the foreground in front of `ports` (round robin: REST calls are stateless). */
async function startNginx(dir, ports) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'tmp-body')};
  proxy_temp_path ${join(dir, 'tmp-proxy')};
  fastcgi_temp_path ${join(dir, 'tmp-fastcgi')};
  uwsgi_temp_path ${join(dir, 'tmp-uwsgi')};
  scgi_temp_path ${join(dir, 'tmp-scgi')};
  map $http_upgrade $connection_upgrade { default upgrade; '' ''; }
  upstream federa {
${ports.map((p) => `    server 127.0.0.1:${p};`).join('\n')}
    keepalive 64;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://federa;
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_buffering off;
    }
  }
}
`,
  );
  const p = spawn(NGINX, ['-e', 'stderr', '-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'inherit'] });
  children.add(p);
  p.on('exit', () => children.delete(p));
  for (let i = 0; !(await accepting(port)); i++) {
    if (p.exitCode !== null || i > 200) throw new Error('nginx did not start');
    await sleep(50);
  }
  return { port, process: p };
}

const dir = mkdtempSync(join(tmpdir(), 'federa-bench-instances-'));
const dbName = `federa_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_ADMIN });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
await admin.end();
const dbUri = PG_ADMIN.replace(/\/[^/]*$/, `/${dbName}`);
cleanups.push(async () => {
  const c = new pg.Client({ connectionString: PG_ADMIN });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await c.end();
});

try {
  const configFile = join(dir, 'bench.yaml');
  const prod = {
    ip: '127.0.0.1',
    uri: dbUri,
    message_broker: `${REDIS}?channel=federa-bench-${randomBytes(4).toString('hex')}`,
    jwt_secret_key: 'bench-secret-key-that-is-long-enough',
    root_user: { email: 'root@example.org', password: ROOT_PASSWORD },
    bcrypt_rounds: 4,
    password_policy: { max_failed_attempts_per_address: 1000 },
    directories: { data: join(dir, 'data'), log: join(dir, 'log') },
    logging: { level: 'warn', use_console: false },
  };
  writeFileSync(configFile, JSON.stringify({ application: {}, environments: { prod } }));

  // Instance one migrates and seeds; instance two joins once it listens.
  const one = await startInstance(configFile);
  const base = `http://127.0.0.1:${one.port}/api`;
  const { token, orgs } = await seedFederation(apiCaller(base), ROOT_PASSWORD);
  const two = await startInstance(configFile);
  const auth = { authorization: `Bearer ${token}` };
  // /health: no token, one SELECT 1 (what the instances themselves can do); the others: authenticated reads, which
  // also write the caller's last_seen (one UPDATE of the same row per request).
  const targets = [
    ['GET /api/health', '/api/health', {}],
    ['GET /api/organization/{id}', `/api/organization/${orgs[0]}`, auth],
    ['GET /api/task?page=1&per_page=10', '/api/task?page=1&per_page=10', auth],
  ];

  const rows = [];
  const measured = {};
  for (const [setup, ports] of [
    ['1 instance', [one.port]],
    ['2 instances', [one.port, two.port]],
  ]) {
    const nginx = await startNginx(join(dir, `nginx-${ports.length}`), ports);
    for (const [name, path, headers] of targets) {
      console.log(`${setup} behind nginx, ${name}: ${duration}s…`);
      const r = await cannon(`http://127.0.0.1:${nginx.port}${path}`, { headers, duration, connections });
      measured[`${setup}|${name}`] = r;
      rows.push({
        setup,
        endpoint: name,
        'req/s': Math.round(r.rps),
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        'non-2xx': r.non2xx + r.errors,
      });
    }
    await stopProcess(nginx.process, 'SIGTERM');
  }
  for (const [name] of targets) {
    const a = measured[`1 instance|${name}`];
    const b = measured[`2 instances|${name}`];
    rows.push({
      setup: 'ratio 2/1',
      endpoint: name,
      'req/s': (b.rps / a.rps).toFixed(2),
      'p50 ms': '',
      'p99 ms': '',
      'non-2xx': '',
    });
  }
  console.log(
    `\nAPI throughput, 1 vs 2 instances behind nginx on PostgreSQL + Redis (${connections} connections, ${duration} s each, node ${process.version}, ${cpus().length} CPU cores shared by instances, nginx, PostgreSQL and the load generator)`,
  );
  console.table(rows);
} finally {
  for (const p of [...children]) await stopProcess(p);
  for (const c of cleanups) await c().catch((e) => console.error('cleanup failed:', e.message));
  rmSync(dir, { recursive: true, force: true });
}
