#!/usr/bin/env node
// Benchmark: Federa API throughput beside a bare Fastify hello-world, same machine, same run.
// autocannon (20 connections, 10 s each) runs as a separate process; the servers run in this one.
// Prints req/s, p50/p99 latency and the ratio to bare Fastify. Needs `npx tsc --build` first.
//   node bench/api-throughput/run.mjs [--duration 10] [--connections 20] [--profile out.cpuprofile]
// --profile writes a CPU profile of this (server) process while autocannon loads Federa (open it in Chrome
// DevTools or speedscope).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import pino from 'pino';
import { buildApp, createContext, parseServerConfig } from '@federa/server';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const duration = arg('duration', 10);
const profileIndex = process.argv.indexOf('--profile');
const profilePath = profileIndex > 0 ? process.argv[profileIndex + 1] : undefined;
const connections = arg('connections', 20);
const autocannonBin = fileURLToPath(new URL('../../node_modules/autocannon/autocannon.js', import.meta.url));

function cannon(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const args = [autocannonBin, '-c', String(connections), '-d', String(duration), '-j'];
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
    args.push(url);
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}`));
      const r = JSON.parse(out);
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        non2xx: r.non2xx,
        errors: r.errors,
      });
    });
  });
}

const results = [];
const report = (name, r, base) =>
  results.push({
    name,
    'req/s': Math.round(r.rps),
    'p50 ms': r.p50,
    'p99 ms': r.p99,
    'vs bare': base ? `${((r.rps / base.rps) * 100).toFixed(0)}%` : '100%',
    'non-2xx': r.non2xx + r.errors,
  });

// 1. bare Fastify
const bare = Fastify();
bare.get('/hello', async () => ({ hello: 'world' }));
await bare.listen({ port: 0, host: '127.0.0.1' });
console.log(`bare fastify: ${duration}s, ${connections} connections…`);
const bareResult = await cannon(`http://127.0.0.1:${bare.server.address().port}/hello`);
await bare.close();
report('bare Fastify GET /hello', bareResult);

// 2. Federa on its embedded SQLite database (a file, as in production)
const dir = mkdtempSync(join(tmpdir(), 'federa-bench-'));
const config = parseServerConfig(
  {
    uri: `sqlite:///${join(dir, 'bench.sqlite')}`,
    jwt_secret_key: 'bench-secret-key-that-is-long-enough',
    root_user: { email: 'root@example.org', password: 'Bench-Root-1!' },
    bcrypt_rounds: 4,
    password_policy: { max_failed_attempts_per_address: 1000 },
  },
  'bench.yaml',
);
const { ctx } = await createContext({ config, dataDir: dir, log: pino({ level: 'silent' }) });
const app = await buildApp(ctx);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}/api`;
const call = async (method, path, body, token) => {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
};
const { access_token: token } = await call('POST', '/token/user', {
  username: 'root',
  password: 'Bench-Root-1!',
});
const me = await call('GET', '/user?username=root', undefined, token);
const orgs = [];
for (let i = 0; i < 5; i++)
  orgs.push((await call('POST', '/organization', { name: `bench-org-${i}`, country: 'NL' }, token)).id);
orgs.push(me[0].organization.id);
const collab = await call(
  'POST',
  '/collaboration',
  { name: 'bench-collab', organization_ids: orgs, encrypted: false },
  token,
);
for (const org of orgs)
  await call('POST', '/node', { collaboration_id: collab.id, organization_id: org }, token);
console.log('seeding 200 tasks…');
for (let i = 0; i < 200; i++) {
  await call(
    'POST',
    '/task',
    {
      collaboration_id: collab.id,
      organizations: orgs.map((id) => ({ id, input: 'aW5wdXQ=' })),
      name: `t${i}`,
      image: 'bench/image',
    },
    token,
  );
}
const auth = { authorization: `Bearer ${token}` };
const profiler = profilePath ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
console.log(`federa GET /api/organization/{id}: ${duration}s…`);
report(
  'Federa GET /api/organization/{id}',
  await cannon(`${base}/organization/${orgs[0]}`, auth),
  bareResult,
);
console.log(`federa GET /api/task?page=1&per_page=10: ${duration}s…`);
report(
  'Federa GET /api/task?page=1&per_page=10',
  await cannon(`${base}/task?page=1&per_page=10`, auth),
  bareResult,
);
if (profiler) {
  const { profile } = await profiler.post('Profiler.stop');
  writeFileSync(profilePath, JSON.stringify(profile));
  profiler.disconnect();
  console.log(`CPU profile of the server side written to ${profilePath}`);
}
await app.close();
await ctx.dbh.close();
rmSync(dir, { recursive: true, force: true });

console.log(
  `\nAPI throughput (${connections} connections, ${duration} s each, node ${process.version}, target: Federa >= 40% of bare Fastify)`,
);
console.table(results);
