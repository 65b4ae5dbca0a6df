#!/usr/bin/env node
// Benchmark: Federa API throughput beside a bare Fastify hello-world, same machine, same run.
// autocannon (20 connections, 10 s each) runs as a separate process; the servers run in this one.
// Prints req/s, p50/p99 latency and the ratio to bare Fastify. Needs `npx tsc --build` first.
//   node bench/api-throughput/run.mjs [--duration 10] [--connections 20] [--profile out.cpuprofile]
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

const duration = numberOption('duration', 10);
const profileIndex = process.argv.indexOf('--profile');
const profilePath = profileIndex > 0 ? process.argv[profileIndex + 1] : undefined;
const connections = numberOption('connections', 20);
const load = (url, headers = {}) => cannon(url, { headers, duration, connections });

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
const bareResult = await load(`http://127.0.0.1:${bare.server.address().port}/hello`);
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
const call = apiCaller(base);
const { token, orgs } = await seedFederation(call, 'Bench-Root-1!');
const auth = { authorization: `Bearer ${token}` };
const profiler = profilePath ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.start');
}
console.log(`federa GET /api/organization/{id}: ${duration}s…`);
report('Federa GET /api/organization/{id}', await load(`${base}/organization/${orgs[0]}`, auth), bareResult);
console.log(`federa GET /api/task?page=1&per_page=10: ${duration}s…`);
report(
  'Federa GET /api/task?page=1&per_page=10',
  await load(`${base}/task?page=1&per_page=10`, auth),
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
