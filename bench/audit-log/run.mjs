#!/usr/bin/env node
// Benchmark: what the audit log costs (docs/audit.md). The writer alone: entries per second appended one after the
// other (each awaited: one O_DSYNC write each) and many at once (group commit: one write per batch),
// with and without fdatasync. Then the server: an audited request (GET /result) with and without an audit log,
// in-process (app.inject), one after the other. Needs `npx tsc --build` first.
//   node bench/audit-log/run.mjs [--entries 2000] [--requests 300]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { AuditLog } from '@federa/common';
import { buildApp, createContext, parseServerConfig } from '@federa/server';
import { numberOption } from '../lib/load.mjs';

const entries = numberOption('entries', 2000);
const requests = numberOption('requests', 300);
const dir = mkdtempSync(join(tmpdir(), 'federa-audit-bench-'));
const fields = {
  route: 'GET /result/:id',
  actor: { kind: 'user', id: 7, organization_id: 2 },
  ip: '10.0.0.9',
  status: 200,
  params: { id: 123 },
};

async function writer(name, sync, parallel) {
  const { log } = await AuditLog.open({ dir: join(dir, name), chain: 'bench', sync });
  const start = process.hrtime.bigint();
  if (parallel) {
    for (let i = 0; i < entries; i += 64)
      await Promise.all(
        Array.from({ length: Math.min(64, entries - i) }, () => log.append('result.read', fields)),
      );
  } else for (let i = 0; i < entries; i++) await log.append('result.read', fields);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  await log.close();
  return {
    case: name,
    entries_per_s: Math.round(entries / seconds),
    us_per_entry: Math.round((seconds / entries) * 1e6),
  };
}

async function server(audited) {
  const sub = join(dir, audited ? 'server-audited' : 'server-plain');
  const { ctx } = await createContext({
    config: parseServerConfig(
      {
        uri: `sqlite:///${join(dir, `${audited}.sqlite`)}`,
        jwt_secret_key: 'bench-secret-key-that-is-long-enough',
        root_user: { email: 'root@example.org', password: 'Bench-Root-1!' },
        bcrypt_rounds: 4,
        response_cache_mb: 0,
      },
      'bench.yaml',
    ),
    dataDir: dir,
    log: pino({ level: 'silent' }),
    auditDir: audited ? sub : null,
  });
  const app = await buildApp(ctx);
  const token = (
    await app.inject({
      method: 'POST',
      url: '/api/token/user',
      payload: { username: 'root', password: 'Bench-Root-1!' },
    })
  ).json().access_token;
  const times = [];
  for (let i = 0; i < requests; i++) {
    const t = process.hrtime.bigint();
    const r = await app.inject({
      method: 'GET',
      url: '/api/result',
      headers: { authorization: `Bearer ${token}` },
    });
    if (r.statusCode !== 200) throw new Error(`GET /result answered ${r.statusCode}`);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  await app.close();
  await ctx.audit?.close();
  await ctx.dbh.close();
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
  return {
    case: audited ? 'GET /result, audited (fdatasync)' : 'GET /result, no audit log',
    median_ms: at(0.5),
    p90_ms: at(0.9),
  };
}

try {
  console.table([
    await writer('one after the other, fdatasync', true, false),
    await writer('one after the other, no fdatasync', false, false),
    await writer('64 at once, fdatasync (group commit)', true, true),
  ]);
  console.table([await server(false), await server(true)]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
