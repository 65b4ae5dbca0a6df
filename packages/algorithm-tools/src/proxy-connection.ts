/**
 * HTTP access to the node's proxy: one authenticated JSON request, with the proxy's refusals and network failures
 * turned into the client's errors.
 */
import type { AlgorithmClientErrors } from './algorithm-client-errors.js';

/** Header of the proxy's long-poll answers (a Federa extension); a proxy that does not send it is polled. */
export const LONG_POLL_HEADER = 'x-federa-wait';

/** Why a `fetch` failed, in a few words (`ECONNREFUSED`, `no answer within 30000 ms`, …). */
function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** Where the proxy is, the token to send and how long one request may take. */
export interface ProxyConnectionOptions {
  readonly host: string;
  readonly port: number;
  readonly apiPath: string;
  readonly token: string;
  readonly timeoutMs: number;
  readonly errors: AlgorithmClientErrors;
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

  constructor(options: ProxyConnectionOptions) {
    this.#errors = options.errors;
    this.#token = options.token;
    this.#host = options.host.replace(/\/+$/, '');
    this.#port = options.port;
    const apiPath = options.apiPath.replace(/\/+$/, '');
    this.#base = `${this.#host}:${this.#port}${apiPath && !apiPath.startsWith('/') ? '/' : ''}${apiPath}`;
    this.timeoutMs = options.timeoutMs;
  }

  /** One request: the parsed answer and the proxy's long-poll header; refusals and failures throw. */
  async exchange<T>(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
  ): Promise<{ body: T; waitOutcome: string | null }> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${this.#token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (error) {
      throw this.#errors.unreachable(this.#host, this.#port, networkReason(error, timeoutMs), error);
    }
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (res.status > 210) {
      const b = parsed as { msg?: unknown; message?: unknown } | null;
      const serverMessage =
        typeof b?.msg === 'string'
          ? b.msg
          : typeof b?.message === 'string'
            ? b.message
            : text.trim().slice(0, 200) || `HTTP ${res.status}`;
      throw this.#errors.refused({ status: res.status, method, path, serverMessage, body: parsed });
    }
    if (parsed === null && text.trim() !== '')
      throw this.#errors.invalid(`${method} ${path}: the proxy's answer is not JSON: ${text.slice(0, 200)}`);
    return { body: parsed as T, waitOutcome: res.headers.get(LONG_POLL_HEADER) };
  }
}
