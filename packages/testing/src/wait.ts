/**
 * Polls `probe` every `everyMs` until `ok` holds and returns that value; throws after `timeoutMs`, naming `what`
 * and the last value seen.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T> | T,
  ok: (v: T) => boolean,
  timeoutMs = 60_000,
  everyMs = 50,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(v)?.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
