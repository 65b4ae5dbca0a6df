/**
 * The node's local proxy (docs/container-environment.md#the-proxy-and-the-container-token): the only way from algorithm containers to the server.
 * It forwards calls with the container's own `Authorization` header, encrypts sub-task input for each receiving
 * organization (`POST /task`) and decrypts results for the master (`GET /task/<id>/result`, `GET /result/<id>`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EncryptionError, decodeBase64Lenient, encryptForOrganizations } from '@federa/common';

import { buildUrl } from '../server-client/rest-client.js';
import { TaskWaits, WAIT_HEADER, parseWaitSeconds } from './task-waits.js';
import { V4_PROXY_PATH, type ProxyOptions } from './proxy-options.js';
import { decryptResults, inlineStored } from './result-outputs.js';

export { V4_PROXY_PATH, type ProxyOptions } from './proxy-options.js';

export interface RunningProxy {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

interface Upstream {
  status: number;
  body: Buffer;
  contentType: string | undefined;
}

const MAX_BODY = 256 * 1024 * 1024;

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const waits = new TaskWaits(options.events, options.waits);
  const server = createServer((req, res) => {
    options.observe?.(req, res);
    const work = (): Promise<void> => handle(options, waits, req, res);
    (options.traces ? options.traces.proxyCall(req, res, work) : work()).catch((error: unknown) => {
      options.log.error(
        { event: 'proxy.error', err: String(error), url: req.url },
        'proxy failed to handle a request',
      );
      if (!res.headersSent) sendJson(res, 500, { msg: 'the node proxy failed to handle the request' });
      else res.end();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  options.log.info(
    { event: 'proxy.listening', host: address.address, port: address.port },
    'local proxy listening',
  );
  return {
    host: address.address,
    port: address.port,
    close: () => closeServer(server),
  };
}

/** The server's 4.x surface beside the 3.x API of `apiBase`: `/v4/api` on the same origin. */
export function v4ApiBase(apiBase: string): string {
  return `${new URL(apiBase).origin}/v4/api`;
}

async function handle(
  o: ProxyOptions,
  waits: TaskWaits,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://proxy');
  const method = (req.method ?? 'GET').toUpperCase();
  const auth = req.headers.authorization;
  const body = await readBody(req);
  const asked = url.pathname.replace(/\/+$/, '') || '/';
  o.log.debug({ event: 'proxy.request', method, path: asked }, 'algorithm request');
  // A vantage6 4.x algorithm (API_PATH=/v4, runs/environment.ts) is answered by the server's 4.x surface.
  const v4 = asked === V4_PROXY_PATH || asked.startsWith(`${V4_PROXY_PATH}/`);
  if (v4) o = { ...o, apiBase: v4ApiBase(o.apiBase) };
  const path = v4 ? asked.slice(V4_PROXY_PATH.length) || '/' : asked;

  if (method === 'POST' && path === '/task') return createTask(o, res, body, auth, url.search);

  const waitFor = /^\/task\/(\d+)$/.exec(path);
  if (method === 'GET' && waitFor && url.searchParams.has('wait')) {
    return waitForTask(o, waits, res, Number(waitFor[1]), url, auth);
  }

  // Results are decrypted for the algorithm; a 4.x algorithm also reads them as a listing (`GET /result?task_id=`).
  const results =
    /^\/task\/\d+\/result$/.test(path) || /^\/result\/\d+$/.test(path) || (v4 && path === '/result');
  if (method === 'GET' && results) {
    const up = await forward(o, method, path + url.search, undefined, auth);
    if (up.status > 210) return relay(res, up);
    let parsed: unknown;
    try {
      parsed = JSON.parse(up.body.toString('utf8'));
    } catch {
      return relay(res, up);
    }
    return sendJson(res, 200, decryptResults(o, await inlineStored(o, parsed, auth)));
  }

  if (!['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].includes(method)) {
    return sendJson(res, 405, { msg: `the node proxy does not forward ${method}` });
  }
  return relay(res, await forward(o, method, path + url.search, body.length > 0 ? body : undefined, auth));
}

/** The server refused to show an organization: its answer goes back to the algorithm as it is. */
class UpstreamRefusal extends Error {
  constructor(readonly answer: Upstream) {
    super(`the server answered ${answer.status}`);
  }
}

async function createTask(
  o: ProxyOptions,
  res: ServerResponse,
  raw: Buffer,
  auth: string | undefined,
  search: string,
): Promise<void> {
  let task: { organizations?: { id: number; input?: string }[] } & Record<string, unknown>;
  try {
    task = JSON.parse(raw.toString('utf8') || '{}') as typeof task;
  } catch {
    return sendJson(res, 400, { msg: 'the request body is not valid JSON' });
  }
  const orgs = task.organizations;
  if (!Array.isArray(orgs) || orgs.length === 0) {
    return sendJson(res, 400, {
      msg: 'a task needs organizations: [{"id": <organization id>, "input": <base64 input>}]',
    });
  }
  if (o.cryptor.encrypted) {
    // One organization after the other, with the container's own header (the fixed 3.3.6 behaviour).
    const plain: { id: number; input: Uint8Array }[] = [];
    for (const org of orgs) {
      try {
        plain.push({ id: org.id, input: decodeBase64Lenient(org.input ?? '', 'the sub-task input') });
      } catch (error) {
        return sendJson(res, 400, {
          msg: `cannot encrypt the input for organization ${org.id}: ${(error as Error).message}`,
        });
      }
    }
    let encrypted: { id: number; input: string }[];
    try {
      encrypted = await encryptForOrganizations(o.cryptor, plain, async (id) => {
        const up = await forward(o, 'GET', `/organization/${id}`, undefined, auth);
        if (up.status > 210) {
          o.log.warn(
            { event: 'proxy.public_key_unavailable', organization_id: id, status: up.status },
            'cannot read the public key of an organization',
          );
          throw new UpstreamRefusal(up);
        }
        const org = JSON.parse(up.body.toString('utf8')) as { public_key?: string; name?: string | null };
        return { publicKey: org.public_key ?? '', name: org.name ?? null };
      });
    } catch (error) {
      if (error instanceof UpstreamRefusal) return relay(res, error.answer);
      if (!(error instanceof EncryptionError)) throw error;
      return sendJson(res, 400, { msg: error.message });
    }
    task = { ...task, organizations: orgs.map((org, k) => ({ ...org, ...encrypted[k] })) };
  }
  const up = await forward(o, 'POST', `/task${search}`, Buffer.from(JSON.stringify(task)), auth);
  o.log.info(
    { event: 'proxy.subtask', status: up.status, organizations: orgs.map((x) => x.id) },
    'sub-task created by an algorithm',
  );
  return relay(res, up);
}

/** `GET /task/{id}?wait=<seconds>`: the task once it is complete, or as it is when the seconds pass. */
async function waitForTask(
  o: ProxyOptions,
  waits: TaskWaits,
  res: ServerResponse,
  taskId: number,
  url: URL,
  auth: string | undefined,
): Promise<void> {
  const seconds = parseWaitSeconds(url.searchParams.get('wait') ?? '', waits.maxWaitSeconds);
  if (typeof seconds === 'string') return sendJson(res, 400, { msg: seconds });
  if (waits.full) {
    o.log.warn({ event: 'proxy.wait_refused', task_id: taskId, waiters: waits.active }, 'too many waits');
    res.setHeader('retry-after', '1');
    return sendJson(res, 503, {
      msg: `the node proxy already holds ${waits.maxWaiters} waits, its limit; poll GET /task/${taskId} without wait instead`,
    });
  }
  const query = new URLSearchParams(url.searchParams);
  query.delete('wait');
  const search = query.size > 0 ? `?${query.toString()}` : '';
  const closed = new AbortController();
  res.on('close', () => closed.abort());
  const started = Date.now();
  const { outcome, reading } = await waits.wait(
    taskId,
    seconds,
    () => forward(o, 'GET', `/task/${taskId}${search}`, undefined, auth),
    closed.signal,
  );
  o.log.debug(
    { event: 'proxy.wait_answered', task_id: taskId, outcome, ms: Date.now() - started },
    'long-poll of a task answered',
  );
  if (outcome === 'closed' || !reading) return;
  if (outcome !== 'refused') res.setHeader(WAIT_HEADER, outcome);
  return relay(res, reading as Upstream);
}

/** Up to `attempts` tries: a connection failure or a 5xx is tried again; the last answer is returned unchanged. */
async function forward(
  o: ProxyOptions,
  method: string,
  pathAndQuery: string,
  body: Buffer | undefined,
  auth: string | undefined,
): Promise<Upstream> {
  const attempts = o.attempts ?? 3;
  const [path, query] = splitQuery(pathAndQuery);
  const url = buildUrl(o.apiBase, path) + query;
  let last: Upstream | undefined;
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (auth) headers.authorization = auth;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const traceparent = o.traces?.traceparent();
      if (traceparent) headers.traceparent = traceparent;
      const r = await fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(o.requestTimeoutMs ?? 60_000),
      });
      last = {
        status: r.status,
        body: Buffer.from(await r.arrayBuffer()),
        contentType: r.headers.get('content-type') ?? undefined,
      };
      if (r.status < 500) return last;
    } catch (error) {
      lastError = error;
    }
    if (i + 1 < attempts) await new Promise((r) => setTimeout(r, 200 * (i + 1)));
  }
  if (last) return last;
  o.log.warn(
    { event: 'proxy.upstream_unreachable', method, path, err: String(lastError) },
    'the server could not be reached',
  );
  return {
    status: 500,
    body: Buffer.from(
      JSON.stringify({ msg: `the node could not reach the server after ${attempts} attempts` }),
    ),
    contentType: 'application/json',
  };
}

function splitQuery(pathAndQuery: string): [string, string] {
  const q = pathAndQuery.indexOf('?');
  return q < 0 ? [pathAndQuery, ''] : [pathAndQuery.slice(0, q), pathAndQuery.slice(q)];
}

function relay(res: ServerResponse, up: Upstream): void {
  res.writeHead(up.status, {
    'content-type': up.contentType ?? 'application/json',
    'content-length': up.body.length,
  });
  res.end(up.body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': text.length });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
