// A server on a fresh SQLite file in a temporary folder, with a random root password, for the benchmarks that drive
// the web UI in a browser (bench/ui-pages, bench/store-form).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '@federa/server';

/** Starts it: `server` (url, port), root's `password`, and `stop()`, which closes it and removes its folder. */
export async function startUiBenchServer(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const password = `Bench-${randomBytes(6).toString('hex')}-1!`;
  const config = join(dir, 'server.yaml');
  writeFileSync(
    config,
    [
      'environments:',
      '  prod:',
      '    ip: 127.0.0.1',
      '    api_path: /api',
      `    uri: sqlite:///${join(dir, 'bench.sqlite')}`,
      `    jwt_secret_key: ${randomBytes(32).toString('hex')}`,
      `    root_user: {email: root@bench.local, password: "${password}"}`,
      `    directories: {data: ${dir}, log: ${dir}}`,
      '    logging: {level: ERROR, use_console: false}',
      '',
    ].join('\n'),
  );
  const server = await startServer({ configFile: config, environment: 'prod', port: 0 });
  return {
    server,
    password,
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
