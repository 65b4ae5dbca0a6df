/**
 * The HTTP layer shared by {@link UserClient} and {@link AlgorithmClient}: builds URLs, sends JSON, and turns
 * error answers and network failures into the typed errors of `errors.ts`.
 */
import { ConnectionError, apiErrorFor, type ApiErrorDetails } from './errors.js';

/** A query-string value; arrays repeat the key, `undefined`/`null`/`false` leave it out. */
export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];

/** Where the server (or the node's proxy) is. */
export interface ServerAddress {
  /** Scheme and host, e.g. `http://localhost` or `https://federa.example.org`. */
  host: string;
  /** TCP port. */
  port: number;
  /** Prefix of every API path, e.g. `/api`; empty for the algorithm proxy. */
  apiPath: string;
}

/** One request. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path relative to the API prefix, starting with `/`. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Access token sent as `Authorization: Bearer …`. */
  token?: string | null;
  /**
   * A successful answer's body is left unread: `body` is its stream (a download, docs/large-results.md), and the
   * time-out covers only the wait for the answer's headers.
   */
  raw?: boolean;
  /** `path` is from the server's origin, not under the API prefix (the algorithm store's own API). */
  fromOrigin?: boolean;
  /** W3C `traceparent` sent with the request (trace-context.ts). */
  traceparent?: string | undefined;
}

/** A successful (status < 400) answer. */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or `null` when the body was empty. */
  body: unknown;
}

/** An error answer before it is turned into an exception (the session inspects it to decide on a refresh). */
export interface HttpFailure {
  details: ApiErrorDetails;
}

/** Turns camelCase filter names into the API's snake_case (`collaborationId` → `collaboration_id`). */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Builds a query string from filters (keys converted to snake_case). */
export function queryString(query: Record<string, QueryValue> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    const name = snakeCase(key);
    if (Array.isArray(value))
      for (const v of value as readonly (string | number)[]) params.append(name, String(v));
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Reads the server's message (and field messages) out of an error body of any 3.x shape. */
function errorDetails(
  status: number,
  body: unknown,
  text: string,
  method: string,
  path: string,
): ApiErrorDetails {
  let serverMessage = text.trim().slice(0, 200) || `HTTP ${status}`;
  let code: string | null = null;
  let fields: Record<string, string> | undefined;
  if (body !== null && typeof body === 'object') {
    const b = body as { msg?: unknown; message?: unknown; code?: unknown };
    if (typeof b.code === 'string') code = b.code;
    if (typeof b.msg === 'string') serverMessage = b.msg;
    else if (typeof b.message === 'string') serverMessage = b.message;
    if (b.message !== null && typeof b.message === 'object') {
      fields = Object.fromEntries(Object.entries(b.message).map(([k, v]) => [k, String(v)]));
      if (typeof b.msg !== 'string') {
        serverMessage = Object.entries(fields)
          .map(([k, v]) => `${k}: ${v}`)
          .join('; ');
      }
    }
  }
  return { status, code, serverMessage, method, path, ...(fields ? { fields } : {}) };
}

/** Why a `fetch` failed, in a few words (`ECONNREFUSED`, `timed out after 30000 ms`, …). */
function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** Sends requests to one server. Stateless apart from its address; tokens are passed per request. */
export class HttpTransport {
  readonly address: ServerAddress;
  readonly timeoutMs: number;

  /**
   * @param address where the server is.
   * @param timeoutMs how long one request may take before it fails with a {@link ConnectionError}.
   */
  constructor(address: ServerAddress, timeoutMs: number) {
    this.address = {
      ...address,
      host: address.host.replace(/\/+$/, ''),
      apiPath: normalizeApiPath(address.apiPath),
    };
    this.timeoutMs = timeoutMs;
  }

  /** `host:port`, the base of the socket.io URL. */
  get origin(): string {
    return `${this.address.host}:${this.address.port}`;
  }

  /** The full URL of an API path. */
  url(path: string, query?: Record<string, QueryValue>): string {
    return `${this.origin}${this.address.apiPath}${path}${queryString(query)}`;
  }

  /**
   * Sends one request. Resolves with the answer when the status is below 400, with an {@link HttpFailure}
   * otherwise; rejects with a {@link ConnectionError} when the server cannot be reached.
   */
  async send(spec: RequestSpec): Promise<HttpAnswer | HttpFailure> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (spec.token) headers.authorization = `Bearer ${spec.token}`;
    if (spec.traceparent) headers.traceparent = spec.traceparent;
    const headersOnly = spec.raw ? new AbortController() : undefined;
    const timer = headersOnly
      ? setTimeout(() => headersOnly.abort(new DOMException('timed out', 'TimeoutError')), this.timeoutMs)
      : undefined;
    const init: RequestInit = {
      method: spec.method,
      headers,
      signal: headersOnly?.signal ?? AbortSignal.timeout(this.timeoutMs),
    };
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(spec.body);
    }
    let response: Response;
    let text: string;
    try {
      response = await fetch(
        spec.fromOrigin
          ? `${this.origin}${spec.path}${queryString(spec.query)}`
          : this.url(spec.path, spec.query),
        init,
      );
      clearTimeout(timer);
      if (spec.raw && response.status < 400)
        return { status: response.status, headers: response.headers, body: response.body };
      text = await response.text();
    } catch (error) {
      clearTimeout(timer);
      throw new ConnectionError(this.address.host, this.address.port, networkReason(error, this.timeoutMs), {
        cause: error,
      });
    }
    let body: unknown = null;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (response.status < 400) return { status: response.status, headers: response.headers, body };
    const fullPath = spec.fromOrigin ? spec.path : `${this.address.apiPath}${spec.path}`;
    return { details: errorDetails(response.status, body, text, spec.method, fullPath) };
  }

  /** Like {@link send}, but throws the typed error of a failure. */
  async request(spec: RequestSpec): Promise<HttpAnswer> {
    const answer = await this.send(spec);
    if (isFailure(answer)) throw apiErrorFor(answer.details);
    return answer;
  }
}

/** True for the error branch of {@link HttpTransport.send}. */
export function isFailure(answer: HttpAnswer | HttpFailure): answer is HttpFailure {
  return 'details' in answer;
}

/** `''`, `/api` or `/api/` → `''`, `/api`, `/api`; adds the leading slash when missing. */
export function normalizeApiPath(apiPath: string): string {
  const trimmed = apiPath.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
