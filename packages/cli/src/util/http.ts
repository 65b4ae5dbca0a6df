/** Small HTTP helpers for talking to a server's REST API from the CLI. */
import { CliError } from '../exit-codes.js';

export async function getJson(
  url: string,
  options: { timeoutMs?: number; token?: string } = {},
): Promise<unknown> {
  const res = await fetch(url, {
    signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
  });
  if (!res.ok)
    throw new CliError('remote', `GET ${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return res.json();
}

export async function sendJson(
  method: 'POST' | 'PATCH',
  url: string,
  body: unknown,
  options: { timeoutMs?: number; token?: string } = {},
): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      headers: {
        'content-type': 'application/json',
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new CliError('remote', `${method} ${url} failed: ${(error as Error).message}`, { cause: error });
  }
  const text = await res.text();
  if (!res.ok) {
    let msg = text.slice(0, 300);
    try {
      msg = String((JSON.parse(text) as { msg?: unknown }).msg ?? msg);
    } catch {
      /* not JSON */
    }
    throw new CliError('remote', `${method} ${url} answered ${res.status}: ${msg}`);
  }
  return text ? (JSON.parse(text) as unknown) : {};
}

/** Polls `probe` until it returns a value, or the time is up (undefined). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined>,
  options: {
    timeoutMs: number;
    intervalMs?: number;
    onTick?: (elapsedMs: number) => void;
    stop?: () => Promise<boolean>;
  },
): Promise<T | undefined> {
  const started = Date.now();
  while (Date.now() - started < options.timeoutMs) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (options.stop && (await options.stop())) return undefined;
    options.onTick?.(Date.now() - started);
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 500));
  }
  return undefined;
}
