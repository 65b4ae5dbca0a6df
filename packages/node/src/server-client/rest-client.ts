/**
 * The node's REST connection to the server (docs/node-protocol.md#rest-calls): API-key login, `Authorization: Bearer`,
 * token refresh ahead of expiry and on 401/422, and retries with backoff when the server cannot be reached.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';

import { NodeStoppedError, ServerRequestError, WrongApiKeyError } from '../errors.js';
import { backoffMs, sleep } from '../util/sleep.js';
import { openIdleRequest } from './idle-request.js';
import { nodeIdFromToken, tokenExpiry } from './jwt.js';

export interface RestClientOptions {
  /** `<server_url>[:<port>]<api_path>` */
  readonly apiBase: string;
  readonly apiKey: string;
  readonly log: Logger;
  /** Aborts every wait and retry (node shutdown). */
  readonly signal: AbortSignal;
  /**
   * Per-request time limit in milliseconds (docs/node-protocol.md#rest-calls).
   * @default 60000
   */
  readonly requestTimeoutMs?: number;
  /**
   * Longest wait between retries of a failed request, in milliseconds (of the login: 10 s).
   * @default 30000
   */
  readonly maxBackoffMs?: number;
  /**
   * Refresh this long (milliseconds) before the access token expires, or at half its lifetime if that is sooner.
   * @default 600000
   */
  readonly refreshAheadMs?: number;
  /** Told the bytes of each request body sent and each answer received (the node's metrics count them). */
  readonly onBytes?: (sent: number, received: number) => void;
  /** The `traceparent` of the span a request is made in, if any (docs/observability.md#traces). */
  readonly traceparent?: () => string | undefined;
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RequestOptions {
  readonly body?: unknown;
  readonly query?: Query;
  /** Use this bearer token instead of the node's (the refresh call). */
  readonly token?: string;
  /** Return non-2xx answers instead of throwing. */
  readonly allowError?: boolean;
  /**
   * A body sent as a stream (`application/octet-stream`) instead of `body`, opened again for each attempt; the
   * request then has no time-out of its own (a large upload takes as long as the link needs).
   */
  readonly upload?: { readonly open: () => Readable; readonly headers: Record<string, string> };
}

export interface ApiAnswer<T = unknown> {
  readonly status: number;
  readonly body: T;
}

/** A request that never reached the server (refused, reset, timed out, DNS). */
const isConnectionError = (error: unknown): boolean =>
  error instanceof TypeError ||
  (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'));

export function buildUrl(base: string, path: string, query?: Query): string {
  const url = new URL(base.replace(/\/$/, '') + (path.startsWith('/') ? path : `/${path}`));
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

export class RestClient {
  readonly #o: RestClientOptions;
  #access: string | undefined;
  #refresh: string | undefined;
  #nodeId: number | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;
  readonly #tokenListeners = new Set<(token: string) => void>();

  constructor(options: RestClientOptions) {
    this.#o = options;
  }

  get apiBase(): string {
    return this.#o.apiBase;
  }

  get accessToken(): string {
    if (!this.#access) throw new Error('not logged in');
    return this.#access;
  }

  get nodeId(): number {
    if (this.#nodeId === undefined) throw new Error('not logged in');
    return this.#nodeId;
  }

  /** Called with every new access token (the socket updates its handshake header). */
  onToken(listener: (token: string) => void): void {
    this.#tokenListeners.add(listener);
  }

  /**
   * `POST /token/node` with the API key. 401 → WrongApiKeyError (the node exits). Anything else that fails is
   * retried with backoff until it works or the node stops.
   */
  async login(): Promise<number> {
    const { log, signal } = this.#o;
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.#fetch('POST', '/token/node', { body: { api_key: this.#o.apiKey } });
        if (res.status === 200) {
          this.#setTokens(res.body as { access_token: string; refresh_token: string });
          log.info({ event: 'login', node_id: this.#nodeId }, 'logged in to the server');
          return this.nodeId;
        }
        if (res.status === 401) throw new WrongApiKeyError(this.#o.apiBase);
        log.warn(
          { event: 'login.retry', url: this.#o.apiBase, status: res.status, msg: msgOf(res.body), attempt },
          `login at ${this.#o.apiBase} failed (HTTP ${res.status}); retrying`,
        );
      } catch (error) {
        if (error instanceof WrongApiKeyError || error instanceof NodeStoppedError || signal.aborted)
          throw error;
        log.warn(
          { event: 'login.retry', url: this.#o.apiBase, err: causeText(error), attempt },
          `server unreachable at ${this.#o.apiBase} (${causeText(error)}); retrying`,
        );
      }
      await sleep(backoffMs(attempt, this.#o.maxBackoffMs ?? 10_000), signal);
    }
  }

  /** New tokens from the refresh token; falls back to a fresh login when the refresh token is refused. */
  async refreshTokens(): Promise<void> {
    if (this.#refreshing) return this.#refreshing;
    this.#refreshing = (async () => {
      try {
        const res = this.#refresh
          ? await this.#send('POST', '/token/refresh', { token: this.#refresh, allowError: true })
          : undefined;
        if (res && res.status === 200) {
          this.#setTokens(res.body as { access_token: string; refresh_token: string });
          this.#o.log.debug({ event: 'token.refreshed' }, 'access token refreshed');
          return;
        }
        this.#o.log.info(
          { event: 'token.relogin', status: res?.status },
          'refresh token refused; logging in again',
        );
        await this.login();
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  /**
   * A REST call as the node. Connection errors are retried with backoff (indefinitely, until the node stops);
   * 401/422 refresh the token and repeat once; any status > 210 then throws ServerRequestError (unless allowError).
   */
  async request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiAnswer<T>> {
    let res = await this.#send(method, path, options);
    if ((res.status === 401 || res.status === 422) && options.token === undefined) {
      this.#o.log.info({ event: 'token.rejected', status: res.status, path }, 'token rejected; refreshing');
      await this.refreshTokens();
      res = await this.#send(method, path, options);
    }
    if (res.status > 210 && !options.allowError)
      throw new ServerRequestError(method, path, res.status, res.body);
    return res as ApiAnswer<T>;
  }

  get<T = unknown>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, query ? { query } : {}).then((r) => r.body);
  }

  patch<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PATCH', path, { body }).then((r) => r.body);
  }

  post<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, { body }).then((r) => r.body);
  }

  /** Stops the refresh timer. */
  close(): void {
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    this.#refreshTimer = undefined;
  }

  async #send(method: string, path: string, options: RequestOptions): Promise<ApiAnswer> {
    const { log, signal } = this.#o;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#fetch(method, path, options);
      } catch (error) {
        if (!isConnectionError(error) || signal.aborted)
          throw signal.aborted ? new NodeStoppedError() : error;
        const wait = backoffMs(attempt, this.#o.maxBackoffMs ?? 30_000);
        log.warn(
          {
            event: 'server.unreachable',
            url: this.#o.apiBase,
            method,
            path,
            err: causeText(error),
            retry_in_ms: wait,
          },
          `server unreachable at ${this.#o.apiBase} (${causeText(error)}); retrying`,
        );
        await sleep(wait, signal);
      }
    }
  }

  async #fetch(method: string, path: string, options: RequestOptions): Promise<ApiAnswer> {
    const token = options.token ?? this.#access;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const traceparent = this.#o.traceparent?.();
    if (traceparent) headers.traceparent = traceparent;
    const { upload } = options;
    if (upload) {
      Object.assign(headers, { 'content-type': 'application/octet-stream' }, upload.headers);
      const url = buildUrl(this.#o.apiBase, path, options.query);
      const stream = upload.open();
      stream.on('data', (chunk: Buffer) => this.#o.onBytes?.(chunk.length, 0));
      return sendStream(method, url, headers, stream, this.#o.signal, this.#o.requestTimeoutMs ?? 60_000);
    }
    const timeout = AbortSignal.timeout(this.#o.requestTimeoutMs ?? 60_000);
    const sent = options.body !== undefined ? JSON.stringify(options.body) : undefined;
    const res = await fetch(buildUrl(this.#o.apiBase, path, options.query), {
      method,
      headers,
      ...(sent !== undefined ? { body: sent } : {}),
      signal: AbortSignal.any([timeout, this.#o.signal]),
    });
    const text = await res.text();
    this.#o.onBytes?.(sent === undefined ? 0 : Buffer.byteLength(sent), Buffer.byteLength(text));
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      /* not JSON: keep the text for the error message */
    }
    return { status: res.status, body };
  }

  #setTokens(answer: { access_token: string; refresh_token: string }): void {
    this.#access = answer.access_token;
    this.#refresh = answer.refresh_token;
    this.#nodeId = nodeIdFromToken(answer.access_token);
    for (const l of this.#tokenListeners) l(answer.access_token);
    this.#scheduleRefresh();
  }

  #scheduleRefresh(): void {
    if (this.#refreshTimer) clearTimeout(this.#refreshTimer);
    const exp = this.#access ? tokenExpiry(this.#access) : undefined;
    if (exp === undefined) return;
    const lifetime = exp - Date.now();
    const ahead = Math.min(this.#o.refreshAheadMs ?? 600_000, lifetime / 2);
    const delay = Math.max(1_000, lifetime - ahead);
    this.#refreshTimer = setTimeout(
      () => {
        this.refreshTokens().catch((error: unknown) => {
          if (!(error instanceof NodeStoppedError))
            this.#o.log.error({ event: 'token.refresh_failed', err: String(error) }, 'token refresh failed');
        });
      },
      Math.min(delay, 2 ** 31 - 1),
    );
    this.#refreshTimer.unref();
  }
}

function msgOf(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null && 'msg' in body
    ? String((body as { msg: unknown }).msg)
    : undefined;
}

function causeText(error: unknown): string {
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? String(error);
}

/**
 * When sending a body failed: the answer the server gave before it cut the connection, if it came (it may be
 * read a moment after the write failed), else the failure.
 */
function answerAfterCut(answered: Promise<IncomingMessage>): (error: unknown) => Promise<IncomingMessage> {
  return async (error) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(error as Error), 1000);
    });
    try {
      return await Promise.race([answered.catch(() => late), late]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * Sends `body` as the request's body with node:http, at the pace the socket takes it: fetch (undici) reads a fast
 * source (a file) far ahead of the socket, which held a 200 MB upload in memory (bench/large-result). A connection
 * that fails is a `TypeError` with the cause, as fetch reports it, so that it is retried the same way.
 */
async function sendStream(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Readable,
  signal: AbortSignal,
  idleMs: number,
): Promise<ApiAnswer> {
  // No time limit on the whole upload (a large output over a slow link takes minutes, docs/large-results.md); a
  // connection on which nothing moved for `idleMs` is given up, and the upload tried again.
  const { req, response: answered } = openIdleRequest(method, url, { headers, idleMs, signal });
  answered.catch(() => undefined); // settled below, or of no interest once sending failed without an answer
  let sent = false;
  const sending = pipeline(body, req).then(() => {
    sent = true;
  });
  let text: string;
  let status: number;
  try {
    // The answer is taken when it comes: a server that refuses the output (a full result store: 507) answers
    // before the body has all gone, and may then cut the connection under the rest. Waiting for the whole body
    // first, the node saw only the cut (EPIPE) and never the refusal.
    const res = await Promise.race([answered, sending.then(() => answered, answerAfterCut(answered))]);
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    text = Buffer.concat(chunks).toString('utf8');
    status = res.statusCode ?? 0;
  } catch (error) {
    body.destroy();
    if (signal.aborted) throw error;
    throw new TypeError(`the upload to ${url} failed: ${(error as Error).message}`, { cause: error });
  } finally {
    sending.catch(() => undefined);
    // Answered before the body went whole: the rest is not sent.
    if (!sent) {
      body.destroy();
      req.destroy();
    }
  }
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    /* not JSON: keep the text for the error message */
  }
  return { status, body: parsed };
}
