import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type ServerHandle } from '@federa/server';
import { createTestDatabase, type TestDatabase } from './database.js';
import { call } from './http.js';
import { ROOT_PASSWORD } from './test-app.js';

/** A JSON log line of the server. */
export type LogLine = Record<string, unknown> & { level: string; msg: string; event?: string };

export interface TestServerOptions {
  /**
   * The port to listen on.
   * @default 0 (any free port)
   */
  port?: number;
  /**
   * The address to listen on (a node in a container needs `0.0.0.0`).
   * @default '127.0.0.1'
   */
  ip?: string;
  /**
   * The working directory: the configuration file `<name>.yaml`, data and logs.
   * @default a new temporary directory, removed by {@link TestServer.close}
   */
  dir?: string;
  /**
   * The configuration's name (its file, data and log directories).
   * @default 'test'
   */
  name?: string;
  /**
   * Keys of the configuration's `prod` environment, on top of a root user ({@link ROOT_PASSWORD}), a JWT secret
   * shared by every test server (several instances must accept each other's tokens) and bcrypt rounds for tests.
   * Without `uri`, a throwaway database of the dialect under test (FEDERA_TEST_DB) is made and dropped on close.
   */
  config?: Record<string, unknown>;
}

export interface TestServer {
  handle: ServerHandle;
  /** The log lines written so far. */
  logs: LogLine[];
  /** A root access token (logged in through this server). */
  rootToken: string;
  /** Closes the server, then drops the database and removes the directory it made (if it made them). */
  close(): Promise<void>;
}

/**
 * Starts a real server the way `vserver-local start` does ({@link startServer}: configuration file, logs, database,
 * socket.io, listening on `port`, default 0) with its JSON logs captured, and logs in as root.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const name = options.name ?? 'test';
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'federa-test-server-'));
  mkdirSync(dir, { recursive: true });
  const db: TestDatabase | null = options.config?.uri === undefined ? await createTestDatabase() : null;
  const cleanUp = async (): Promise<void> => {
    await db?.drop();
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  const file = join(dir, `${name}.yaml`);
  const prod = {
    ip: '127.0.0.1',
    ...(db ? { uri: db.uri } : {}),
    jwt_secret_key: 'scaling-test-secret-long-enough',
    bcrypt_rounds: 4,
    root_user: { email: 'root@example.org', password: ROOT_PASSWORD },
    directories: { data: join(dir, `${name}-data`), log: join(dir, `${name}-log`) },
    logging: { level: 'INFO', use_console: true },
    password_policy: { max_failed_attempts_per_address: 1000 },
    ...options.config,
  };
  writeFileSync(file, JSON.stringify({ application: {}, environments: { prod } }, null, 2));
  const logs: LogLine[] = [];
  let handle: ServerHandle;
  try {
    handle = await startServer({
      configFile: file,
      environment: 'prod',
      port: options.port ?? 0,
      ...(options.ip !== undefined ? { ip: options.ip } : {}),
      env: { HOME: dir },
      logStream: { write: (s: string) => void logs.push(JSON.parse(s) as LogLine) },
    });
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const close = async (): Promise<void> => {
    await handle.close();
    await cleanUp();
  };
  const login = await call(handle.apiUrl, 'POST', '/token/user', {
    body: { username: 'root', password: ROOT_PASSWORD },
  });
  if (login.status !== 200) {
    await close();
    throw new Error(`root login on ${name} failed: ${login.status}`);
  }
  return { handle, logs, rootToken: (login.body as { access_token: string }).access_token, close };
}
