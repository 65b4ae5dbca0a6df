import { UserClient } from '@federa/client';
import { ROOT_PASSWORD } from './test-app.js';

/** A UserClient of the server on `port` (API at `/api`), logged in as root; `messages` collects its log. */
export async function rootUserClient(
  port: number,
  options: { refreshMarginSeconds?: number } = {},
): Promise<{ client: UserClient; messages: string[] }> {
  const messages: string[] = [];
  const client = new UserClient({
    host: 'http://127.0.0.1',
    port,
    apiPath: '/api',
    log: (m) => messages.push(m),
    ...options,
  });
  await client.authenticate('root', ROOT_PASSWORD);
  return { client, messages };
}

/** A UserClient of the server on `port` (API at `/api`), logged in as `username`; its warnings are dropped. */
export async function userClientOf(port: number, username: string, password: string): Promise<UserClient> {
  const client = new UserClient({ host: 'http://127.0.0.1', port, apiPath: '/api', warn: () => undefined });
  await client.authenticate(username, password);
  return client;
}

/** A raw API call with a node's token, for tests that play the node. */
export async function nodeCall(
  port: number,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** Now as `YYYY-MM-DDTHH:MM:SS.ffffff`, the way nodes send times. */
export const nodeTime = (): string => `${new Date().toISOString().slice(0, 23)}000`;
