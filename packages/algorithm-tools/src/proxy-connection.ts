/**
 * HTTP access to the node's proxy: one authenticated JSON request, with the proxy's refusals and network failures
 * turned into the client's errors.
 */
import type { AlgorithmClientErrors } from './algorithm-client-errors.js';

/** Header of the proxy's long-poll answers (a Federa extension); a proxy that does not send it is polled. */
export const LONG_POLL_HEADER = 'x-federa-wait';

/** A request that took longer than it may. */
class AnswerTimeout extends Error {}

/** Why a request failed, in a few words (`ECONNREFUSED`, `no answer within 30000 ms`, …). */
function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof AnswerTimeout) return `no answer within ${timeoutMs} ms`;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.message : String(error);
}

/** An answer as read from the wire. */
interface RawAnswer {
  readonly status: number;
  readonly text: string;
  readonly waitOutcome: string | null;
}

/**
 * One HTTP request with `node:http` (or `node:https`), not `fetch`: fetch's implementation (undici) is loaded and
 * compiled on its first use, which costs an algorithm's short life about as much as starting Node.js
 * (docs/performance.md#task-roundtrip).
 */
async function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<RawAnswer> {
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = request(url, {
      method,
      headers: body !== undefined ? { ...headers, 'content-length': Buffer.byteLength(body) } : headers,
    });
    const timer = setTimeout(() => req.destroy(new AnswerTimeout()), timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      res.on('end', () => {
        clearTimeout(timer);
        const wait = res.headers[LONG_POLL_HEADER];
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          waitOutcome: typeof wait === 'string' ? wait : null,
        });
      });
    });
    req.end(body);
  });
}

/** Where the proxy is, the token to send and how long one request may take. */
export interface ProxyConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly apiPath: string;
  readonly token: string;
  readonly timeoutMs: number;
  /** How long a request is tried again while the proxy is away (the node restarts); 0: never. */
  readonly retryForMs?: number;
  readonly errors: AlgorithmClientErrors;
}

/**
 * Whether a failed attempt may be made again: the proxy was away (its node restarting) or said it could not serve.
 * A request that changes something is repeated only when it cannot have reached the proxy (connection refused) or
 * the proxy answered 503 (it did not forward it): never twice to the server.
 */
function retryable(
  method: string,
  failure: { error?: unknown; status?: number },
  retryStatus: boolean,
): boolean {
  const safe = method === 'GET' || method === 'HEAD';
  if (failure.status !== undefined)
    return retryStatus && (failure.status === 503 || (safe && [502, 504].includes(failure.status)));
  if (failure.error instanceof AnswerTimeout) return false;
  const code = (failure.error as { code?: unknown } | null)?.code;
  return code === 'ECONNREFUSED' || (safe && typeof code === 'string');
}

/** The container's connection to its node's proxy. */
export class ProxyConnection {
  readonly #host: string;
  readonly #port: number;
  readonly #base: string;
  readonly #token: string;
  /** How long one request may take. */
  readonly timeoutMs: number;
  readonly #errors: AlgorithmClientErrors;
  readonly #retryForMs: number;

  constructor(options: ProxyConnectionOptions) {
    this.#errors = options.errors;
    this.#retryForMs = options.retryForMs ?? 0;
    this.#token = options.token;
    this.#host = options.host.replace(/\/+$/, '');
    this.#port = options.port;
    const apiPath = options.apiPath.replace(/\/+$/, '');
    this.#base = `${this.#host}:${this.#port}${apiPath && !apiPath.startsWith('/') ? '/' : ''}${apiPath}`;
    this.timeoutMs = options.timeoutMs;
  }

  /**
   * One request: the parsed answer and the proxy's long-poll header; refusals and failures throw. `retryStatus`
   * false: a 502/503/504 answer is returned to the caller at once (a long-poll treats the proxy's 503 itself).
   */
  async exchange<T>(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
    retryStatus = true,
  ): Promise<{ body: T; waitOutcome: string | null }> {
    const deadline = Date.now() + this.#retryForMs;
    let pauseMs = 250;
    let answer!: RawAnswer;
    for (;;) {
      let failure: { error?: unknown; status?: number };
      try {
        answer = await send(
          new URL(`${this.#base}${path}`),
          method,
          {
            accept: 'application/json',
            authorization: `Bearer ${this.#token}`,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body !== undefined ? JSON.stringify(body) : undefined,
          timeoutMs,
        );
        failure = { status: answer.status };
        if (!retryable(method, failure, retryStatus)) break;
      } catch (error) {
        failure = { error };
        if (!retryable(method, failure, retryStatus) || Date.now() + pauseMs > deadline)
          throw this.#errors.unreachable(this.#host, this.#port, networkReason(error, timeoutMs), error);
      }
      if (Date.now() + pauseMs > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pauseMs = Math.min(pauseMs * 2, 5000);
    }
    const { status, text } = answer;
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (status > 210) {
      const b = parsed as { msg?: unknown; message?: unknown } | null;
      const serverMessage =
        typeof b?.msg === 'string'
          ? b.msg
          : typeof b?.message === 'string'
            ? b.message
            : text.trim().slice(0, 200) || `HTTP ${status}`;
      throw this.#errors.refused({ status, method, path, serverMessage, body: parsed });
    }
    if (parsed === null && text.trim() !== '')
      throw this.#errors.invalid(`${method} ${path}: the proxy's answer is not JSON: ${text.slice(0, 200)}`);
    return { body: parsed as T, waitOutcome: answer.waitOutcome };
  }
}
