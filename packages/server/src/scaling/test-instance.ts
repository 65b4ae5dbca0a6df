import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, type ServerHandle } from '../server.js';

export const INSTANCE_ROOT_PASSWORD = 'Root-Password-1!';

/** A JSON log line of the server. */
export type LogLine = Record<string, unknown> & { level: string; msg: string; event?: string };

export interface TestInstance {
  handle: ServerHandle;
  /** The log lines written so far. */
  logs: LogLine[];
  /** A root access token (logged in through this instance). */
  rootToken: string;
}

/**
 * Starts a real server (startServer, port 0, logs captured) for tests of deployment concerns: `config` is the
 * `prod` environment of a configuration file written to `dir/<name>.yaml`, on top of a root user and a JWT secret
 * shared by every instance (several instances must share the secret to accept each other's tokens).
 */
export async function startInstance(
  dir: string,
  name: string,
  config: Record<string, unknown>,
): Promise<TestInstance> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.yaml`);
  const prod = {
    ip: '127.0.0.1',
    jwt_secret_key: 'scaling-test-secret-long-enough',
    bcrypt_rounds: 4,
    root_user: { email: 'root@example.org', password: INSTANCE_ROOT_PASSWORD },
    directories: { data: join(dir, `${name}-data`), log: join(dir, `${name}-log`) },
    logging: { level: 'INFO', use_console: true },
    password_policy: { max_failed_attempts_per_address: 1000 },
    ...config,
  };
  writeFileSync(file, JSON.stringify({ application: {}, environments: { prod } }, null, 2));
  const logs: LogLine[] = [];
  const handle = await startServer({
    configFile: file,
    environment: 'prod',
    port: 0,
    env: { HOME: dir },
    logStream: { write: (s: string) => void logs.push(JSON.parse(s) as LogLine) },
  });
  const r = await fetch(`${handle.apiUrl}/token/user`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: INSTANCE_ROOT_PASSWORD }),
  });
  if (r.status !== 200) {
    await handle.close();
    throw new Error(`root login on ${name} failed: ${r.status}`);
  }
  const rootToken = ((await r.json()) as { access_token: string }).access_token;
  return { handle, logs, rootToken };
}

export interface JsonResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Calls `base + path` with an optional bearer token and JSON body; parses the JSON answer. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<JsonResponse> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: r.status, body };
}

/** Polls `probe` until `ok` holds, or throws after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T> | T,
  ok: (v: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
