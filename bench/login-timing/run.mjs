#!/usr/bin/env node
// Benchmark: how long a refused login takes for an unknown user, an existing user with a wrong password and a
// locked account, beside a successful login, with the default bcrypt cost (12). Login must not tell who exists
// (docs/security.md, "Sessions, tokens and login"); the test holding that counts bcrypt comparisons, this prints
// the times. In-process requests (app.inject), one after the other. Needs `npx tsc --build` first.
//   node bench/login-timing/run.mjs [--rounds 20] [--cost 12]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildApp, createContext, parseServerConfig } from '@federa/server';
import { numberOption } from '../lib/load.mjs';

const rounds = numberOption('rounds', 20);
const cost = numberOption('cost', 12);
const dir = mkdtempSync(join(tmpdir(), 'federa-login-bench-'));
const rootPassword = 'Bench-Root-1!';
const { ctx } = await createContext({
  config: parseServerConfig(
    {
      uri: `sqlite:///${join(dir, 'bench.sqlite')}`,
      jwt_secret_key: 'bench-secret-key-that-is-long-enough',
      root_user: { email: 'root@example.org', password: rootPassword },
      bcrypt_rounds: cost,
      password_policy: { max_failed_attempts: 3, max_failed_attempts_per_address: 1_000_000 },
    },
    'bench.yaml',
  ),
  dataDir: dir,
  log: pino({ level: 'silent' }),
});
const app = await buildApp(ctx);
const login = (username, password) =>
  app.inject({ method: 'POST', url: '/api/token/user', payload: { username, password } });

// A second account, locked by three wrong passwords.
const root = await login('root', rootPassword);
const token = root.json().access_token;
const org = (
  await app.inject({ method: 'GET', url: '/api/organization', headers: { authorization: `Bearer ${token}` } })
).json()[0].id;
const created = await app.inject({
  method: 'POST',
  url: '/api/user',
  headers: { authorization: `Bearer ${token}` },
  payload: {
    username: 'locked',
    firstname: 'Lo',
    lastname: 'Cked',
    email: 'locked@example.org',
    password: 'Locked-User-1!',
    organization: { id: org },
  },
});
if (created.statusCode !== 201) throw new Error(`creating the user failed: ${created.body}`);
for (let i = 0; i < 3; i++) await login('locked', 'Wrong-Pass-1!');

async function measure(name, username, password) {
  const times = [];
  let status = 0;
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    const r = await login(username, password);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    status = r.statusCode;
  }
  times.sort((a, b) => a - b);
  return {
    case: name,
    status,
    'median ms': times[Math.floor(rounds / 2)].toFixed(1),
    'p90 ms': times[Math.floor(rounds * 0.9)].toFixed(1),
  };
}

const rows = [
  await measure('unknown user', 'nobody-here', 'Wrong-Pass-1!'),
  await measure('existing user, wrong password', 'root', 'Wrong-Pass-1!'),
  await measure('locked account, right password', 'locked', 'Locked-User-1!'),
];
// The wrong root passwords above locked root too; successful logins measured last on a fresh account.
await ctx.dbh.db
  .updateTable('user')
  .set({ failed_login_attempts: 0 })
  .where('username', '=', 'root')
  .execute();
rows.push(await measure('successful login', 'root', rootPassword));
console.log(`bcrypt cost ${cost}, ${rounds} logins per case`);
console.table(rows);
await app.close();
await ctx.dbh.close();
rmSync(dir, { recursive: true, force: true });
