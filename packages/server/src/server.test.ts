import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { io as connectClient } from 'socket.io-client';
import { ConfigError } from '@federa/common';
import { startServer, type ServerHandle } from './server.js';
import { runCli, type CliIo } from './bin/vserver-local-cli.js';
import { EXIT_CODES } from './bin/exit-codes.js';
import { SERVER_VERSION } from './version.js';
import { createTestDatabase, TEST_DIALECT, type TestDatabase } from '@federa/testing';

type LogLine = Record<string, unknown> & { level: string; msg: string; event?: string };

/** Captures the JSON log lines the server writes to its console. */
const capture = () => {
  const lines: LogLine[] = [];
  return { lines, stream: { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) } };
};

let dir: string;
let db: TestDatabase;

const writeConfig = (name: string, prod: Record<string, unknown>): string => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    JSON.stringify({ application: {}, environments: { prod, acc: {}, test: {}, dev: {} } }, null, 2),
  );
  return file;
};

const baseConfig = (): Record<string, unknown> => ({
  ip: '127.0.0.1',
  port: 5000,
  uri: TEST_DIALECT === 'postgres' ? db.uri : 'sqlite:///server.sqlite',
  jwt_secret_key: 'server-test-secret-long-enough',
  bcrypt_rounds: 4,
  root_user: { email: 'root@example.org' },
  directories: { data: join(dir, 'data'), log: join(dir, 'log') },
  logging: { level: 'INFO', use_console: true },
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'federa-server-'));
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('startServer', () => {
  let handle: ServerHandle;
  const logs = capture();
  const terminal: string[] = [];
  const env = { HOME: dir };
  let file: string;

  beforeAll(async () => {
    file = writeConfig('demo', baseConfig());
    handle = await startServer({
      configFile: file,
      environment: 'prod',
      port: 0,
      env,
      logStream: logs.stream,
      terminal: { write: (text: string) => terminal.push(text) },
    });
  });
  afterAll(async () => handle.close());

  it('listens on the requested port and logs the API and documentation URLs', async () => {
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.apiUrl).toBe(`http://127.0.0.1:${handle.port}/api`);
    const health = await fetch(`${handle.apiUrl}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { database: boolean }).database).toBe(true);
    expect((await fetch(`${handle.url}/apidocs/`)).status).toBe(200);
    const listening = logs.lines.find((l) => l.event === 'server.listening');
    expect(listening).toMatchObject({
      level: 'info',
      api_url: handle.apiUrl,
      apidocs_url: `${handle.url}/apidocs`,
    });
  });

  it('shows the generated root password once, on the terminal only, and it works', async () => {
    const shown = logs.lines.filter((l) => l.event === 'root.password_generated');
    expect(shown).toHaveLength(1);
    expect(shown[0]!.level).toBe('warn');
    expect(terminal).toHaveLength(1);
    const password = /generated password: (\S+)/.exec(terminal[0]!)?.[1];
    expect(password).toBeDefined();
    // Neither the console log nor the log file (both printed again by `vserver attach`) holds it.
    expect(JSON.stringify(logs.lines)).not.toContain(password);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(dir, 'log', 'demo-prod-server.log'), 'utf8')).not.toContain(password);
    const login = await fetch(`${handle.apiUrl}/token/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password }),
    });
    expect(login.status).toBe(200);
  });

  it('warns that password recovery by e-mail is not configured', () => {
    const warnings = logs.lines.filter(
      (l) => l.level === 'warn' && /password recovery by e-mail is not configured/.test(l.msg),
    );
    expect(warnings).toHaveLength(1);
  });

  it('writes the same JSON logs to the log file of the log directory', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(join(dir, 'log', 'demo-prod-server.log'), 'utf8');
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as LogLine).event),
    ).toContain('server.listening');
  });

  it('serves socket.io at the root and closes sockets on shutdown so that clients may reconnect', async () => {
    const second = capture();
    const file2 = writeConfig('second', {
      ...baseConfig(),
      ...(TEST_DIALECT === 'sqlite' ? { uri: 'sqlite:///second.sqlite' } : {}),
      root_user: { email: 'root@example.org', password: 'Root-Password-1!' },
    });
    const other = await startServer({ configFile: file2, port: 0, env, logStream: second.stream });
    const login = await fetch(`${other.apiUrl}/token/user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root', password: 'Root-Password-1!' }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const client = connectClient(`${other.url}/tasks`, {
      extraHeaders: { Authorization: `Bearer ${token}` },
      reconnection: false,
      forceNew: true,
    });
    await new Promise<void>((resolve, reject) => {
      client.once('connect', resolve);
      client.once('connect_error', reject);
    });
    const reason = new Promise<string>((resolve) => client.once('disconnect', resolve));
    await other.close();
    // The transport closes (not "io server disconnect", after which socket.io clients would not reconnect).
    expect(['transport close', 'transport error']).toContain(await reason);
    expect(second.lines.filter((l) => l.event === 'root.password_generated')).toEqual([]);
    expect(second.lines.map((l) => l.event)).toContain('server.stopped');
    client.close();
  });

  it('stops even when a websocket peer never answers the close handshake (as vantage6 3.x nodes may)', async () => {
    const third = capture();
    const file3 = writeConfig('third', {
      ...baseConfig(),
      ...(TEST_DIALECT === 'sqlite' ? { uri: 'sqlite:///third.sqlite' } : {}),
    });
    const other = await startServer({ configFile: file3, port: 0, env, logStream: third.stream });
    const { port } = new URL(other.url);
    // A raw websocket that upgrades and then ignores everything the server sends (no close frame back).
    const raw = createConnection({ host: '127.0.0.1', port: Number(port) });
    const upgraded = new Promise<void>((resolve) =>
      raw.on('data', (chunk: Buffer) => {
        if (chunk.toString().startsWith('HTTP/1.1 101')) resolve();
      }),
    );
    raw.write(
      'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n' +
        'Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await upgraded;
    const cut = new Promise<void>((resolve) => raw.once('close', () => resolve()));
    // Without cutting, the HTTP server waits for the websocket's 30 s close time-out: this test's time-out fails.
    await other.close();
    await cut;
    expect(third.lines.map((l) => l.event)).toContain('server.connections_cut');
    expect(third.lines.map((l) => l.event)).toContain('server.stopped');
  }, 15_000);

  it('does not show the root password again at the next start', async () => {
    await handle.close();
    const again = capture();
    handle = await startServer({ configFile: file, port: 0, env, logStream: again.stream });
    expect(again.lines.map((l) => l.event)).toContain('server.listening');
    expect(again.lines.filter((l) => l.event === 'root.password_generated')).toEqual([]);
  });
});

describe('configuration errors', () => {
  it('refuses to start without root_user.email, naming the key and the file, before creating anything', async () => {
    const dataDir = join(dir, 'never');
    const file = writeConfig('noemail', {
      ...baseConfig(),
      root_user: { username: 'root' },
      directories: { data: dataDir },
    });
    const error = await startServer({ configFile: file, port: 0, env: { HOME: dir } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe('root_user.email');
    expect((error as Error).message).toContain(file);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('names the uri key for an unsupported database URI', async () => {
    const file = writeConfig('baduri', { ...baseConfig(), uri: 'mysql://somewhere/db' });
    const error = await startServer({ configFile: file, port: 0, env: { HOME: dir } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).key).toBe('uri');
  });
});

describe('vserver-local', () => {
  const cli = (): CliIo & { stdout: string; stderr: string } => {
    const io = {
      stdout: '',
      stderr: '',
      out: (t: string) => void (io.stdout += t),
      err: (t: string) => void (io.stderr += t),
      start: startServer,
    };
    return io;
  };

  it('prints its version', async () => {
    const io = cli();
    expect(await runCli(['version'], io)).toBe('ok');
    expect(io.stdout).toBe(`${SERVER_VERSION}\n`);
  });

  it('prints help, and refuses unknown commands and bad ports as usage errors', async () => {
    const help = cli();
    expect(await runCli(['--help'], help)).toBe('ok');
    expect(help.stdout).toMatch(/start/);
    expect(help.stdout).toMatch(/version/);
    const bad = cli();
    expect(await runCli(['start', '-c', 'x.yaml', '-p', 'eighty'], bad)).toBe('usage');
    expect(bad.stderr).toMatch(/port/);
    expect(await runCli(['frobnicate'], cli())).toBe('usage');
    expect(EXIT_CODES.usage).not.toBe(EXIT_CODES.ok);
  });

  it('exits with the configuration code and one line naming the key and the file', async () => {
    const file = writeConfig('cli-noemail', { ...baseConfig(), root_user: { username: 'root' } });
    const io = cli();
    const reason = await runCli(['start', '-c', file, '-e', 'prod', '-p', '0'], io);
    expect(reason).toBe('config');
    expect(EXIT_CODES[reason]).toBe(3);
    expect(io.stderr.trim().split('\n')).toHaveLength(1);
    expect(io.stderr).toContain('root_user.email');
    expect(io.stderr).toContain(file);
  });

  it('reports a port in use as an unavailable service', async () => {
    const file = writeConfig('busy', {
      ...baseConfig(),
      ...(TEST_DIALECT === 'sqlite' ? { uri: 'sqlite:///busy.sqlite' } : {}),
      root_user: { email: 'root@example.org', password: 'Root-Password-1!' },
    });
    const first = await startServer({
      configFile: file,
      port: 0,
      env: { HOME: dir },
      logStream: capture().stream,
    });
    try {
      const io = cli();
      io.start = (o) => startServer({ ...o, env: { HOME: dir }, logStream: capture().stream });
      const reason = await runCli(['start', '-c', file, '--ip', '127.0.0.1', '-p', String(first.port)], io);
      expect(reason).toBe('unavailable');
      expect(EXIT_CODES[reason]).toBe(9);
      expect(io.stderr).toMatch(/could not start: .*EADDRINUSE|address already in use/i);
    } finally {
      await first.close();
    }
  });
});
