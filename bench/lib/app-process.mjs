#!/usr/bin/env node
// One Federa app for bench/api-throughput's on-and-off figures, in a process of its own, configured as that bench's
// in-process servers are (createContext + buildApp, no logger): `fork('app-process.mjs', [JSON of {uri, dataDir,
// extra}])`. It sends {port} once listening; to the message 'cpu' it answers {cpu} (µs of user + system time so
// far), to 'flush' {flushed} once its spans are sent, to 'scrape' {scraped: status} after reading its metrics, to
// 'profile' {profiling} once its CPU profiler runs, and to {attribute: <regular expression>} {attributed: {busy, own}}:
// the profiler stopped, its samples that were not idle, and those with a frame on their stack (a function's name and
// file) that the expression matches.
import { Session } from 'node:inspector/promises';
import pino from 'pino';
import { buildApp, createContext, parseServerConfig } from '@federa/server';

const { uri, dataDir, extra } = JSON.parse(process.argv[2]);
const config = parseServerConfig(
  {
    uri,
    jwt_secret_key: 'bench-secret-key-that-is-long-enough',
    root_user: { email: 'root@example.org', password: 'Bench-Root-1!' },
    bcrypt_rounds: 4,
    password_policy: { max_failed_attempts_per_address: 1000 },
    ...extra,
  },
  'bench.yaml',
);
const { ctx } = await createContext({ config, dataDir, log: pino({ level: 'silent' }) });
const app = await buildApp(ctx);
await app.listen({ port: 0, host: '127.0.0.1' });
const origin = `http://127.0.0.1:${app.server.address().port}`;
const profiler = new Session();
process.on('message', async (m) => {
  if (m === 'profile') {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    process.send({ profiling: true });
  } else if (m?.attribute) {
    const { profile } = await profiler.post('Profiler.stop');
    profiler.disconnect();
    process.send({ attributed: attribute(profile, new RegExp(m.attribute)) });
  } else if (m === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send({ cpu: user + system });
  } else if (m === 'flush') {
    await ctx.tracing?.flush();
    process.send({ flushed: true });
  } else if (m === 'scrape') {
    const r = await fetch(`${origin}/metrics`);
    await r.text();
    process.send({ scraped: r.status });
  } else if (m === 'stop') {
    await app.close();
    await ctx.tracing?.shutdown();
    await ctx.dbh.close();
    process.exit(0);
  }
});
process.send({ port: app.server.address().port });

/** The samples of `profile` that were not idle, and those of them with a frame on their stack that `own` matches. */
function attribute(profile, own) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  let busy = 0;
  let matched = 0;
  for (const id of profile.samples) {
    const frame = nodes.get(id).callFrame;
    if (frame.functionName === '(idle)') continue;
    busy++;
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const { functionName, url } = nodes.get(at).callFrame;
      if (own.test(`${functionName} ${url}`)) {
        matched++;
        break;
      }
    }
  }
  return { busy, own: matched };
}
