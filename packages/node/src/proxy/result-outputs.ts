/**
 * The results the proxy passes to an algorithm: stored outputs read into them, and their content decrypted for the
 * organization (docs/container-environment.md#the-proxy-and-the-container-token).
 */
import { createHash } from 'node:crypto';
import { encodeBase64 } from '@federa/common';
import { IdleTimeoutError, openIdleRequest } from '../server-client/idle-request.js';
import { buildUrl } from '../server-client/rest-client.js';
import type { ProxyOptions } from './proxy-options.js';

/**
 * Puts the text of every output held in the server's result store (`result: null`, `result_stored`;
 * docs/large-results.md) into `result`, read with `GET /result/{id}/output`, so that an algorithm reads its
 * sub-tasks' large outputs as any other (held whole by the node while it passes). One that cannot be read stays null,
 * and the node's log says why.
 */
export async function inlineStored(
  o: ProxyOptions,
  parsed: unknown,
  auth: string | undefined,
): Promise<unknown> {
  const one = async (item: unknown): Promise<unknown> => {
    if (!item || typeof item !== 'object') return item;
    const r = item as {
      id?: unknown;
      result?: unknown;
      result_stored?: unknown;
      blob_storage_used?: unknown;
    };
    // The server's 4.x surface shows a stored output as a blob: its UUID in `result`, read from `/blobstream`.
    const blob = r.blob_storage_used === true && typeof r.result === 'string' ? r.result : null;
    if (typeof r.id !== 'number' || (blob === null && (r.result !== null || !r.result_stored))) return item;
    const path = blob === null ? `/result/${r.id}/output` : `/blobstream/${encodeURIComponent(blob)}`;
    const read = await readStoredOutput(o, path, auth);
    if ('note' in read) {
      o.log.warn(
        { event: 'proxy.output_unread', result_id: r.id, status: read.status, reason: read.note },
        `cannot read the stored output of result ${r.id}: ${read.note}; passing the result on without it`,
      );
      return blob === null ? item : { ...r, result: null, blob_storage_used: false };
    }
    // Inline for the algorithm, as a 4.x algorithm reads a result whose blob is not used.
    return blob === null
      ? { ...r, result: read.text }
      : { ...r, result: read.text, blob_storage_used: false };
  };
  if (Array.isArray(parsed)) return Promise.all(parsed.map(one));
  if (parsed && typeof parsed === 'object' && Array.isArray((parsed as { data?: unknown }).data)) {
    return { ...(parsed as object), data: await Promise.all((parsed as { data: unknown[] }).data.map(one)) };
  }
  return one(parsed);
}

/**
 * The text of a stored output at `path` (`/result/{id}/output`, or `/blobstream/{uuid}` at the 4.x surface),
 * checked against `x-federa-sha256`. A large output over a slow link takes as long as it needs: the read is
 * bounded by idleness (no byte for the time limit of a call), as the node's upload is
 * (server-client/idle-request.ts), not by the time limit of the whole call. A connection failure, a stall, a 5xx or a wrong checksum is tried again up to `attempts` times; the answer is a note then.
 */
async function readStoredOutput(
  o: ProxyOptions,
  path: string,
  auth: string | undefined,
): Promise<{ text: string } | { note: string; status?: number }> {
  const attempts = o.attempts ?? 3;
  const idleMs = o.requestTimeoutMs ?? 60_000;
  const url = buildUrl(o.apiBase, path);
  const headers: Record<string, string> = { accept: 'application/octet-stream' };
  if (auth) headers.authorization = auth;
  let failure = '';
  for (let i = 0; i < attempts; i++) {
    const { req, response } = openIdleRequest('GET', url, { headers, idleMs });
    req.end();
    let received = 0;
    try {
      const res = await response;
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        res.resume();
        if (status < 500) return { status, note: `the server answered ${status}` };
        failure = `the server answered ${status}`;
      } else {
        const hash = createHash('sha256');
        const chunks: Buffer[] = [];
        for await (const chunk of res as AsyncIterable<Buffer>) {
          received += chunk.length;
          hash.update(chunk);
          chunks.push(chunk);
        }
        const expected = res.headers['x-federa-sha256'];
        const got = hash.digest('hex');
        if (typeof expected !== 'string' || got === expected)
          return { text: Buffer.concat(chunks, received).toString('latin1') };
        failure = `its ${received} bytes do not match their checksum (x-federa-sha256)`;
      }
    } catch (error) {
      req.destroy();
      failure =
        error instanceof IdleTimeoutError
          ? `no byte came for ${idleMs} ms (after ${received} bytes)`
          : `the connection failed after ${received} bytes (${(error as Error).message})`;
    }
    if (i + 1 < attempts) await new Promise((r) => setTimeout(r, 200 * (i + 1)));
  }
  return { note: `${failure}, at each of ${attempts} attempts` };
}

/** Replaces every non-empty `result` by base64 of its plaintext; failures are logged and left as they are. */
export function decryptResults(o: ProxyOptions, parsed: unknown): unknown {
  const one = (item: unknown): unknown => {
    if (!item || typeof item !== 'object') return item;
    const r = item as { id?: number; result?: unknown };
    if (typeof r.result !== 'string' || r.result === '') return item;
    try {
      return { ...r, result: encodeBase64(o.cryptor.decryptStringToBytes(r.result)) };
    } catch (error) {
      o.log.warn(
        { event: 'proxy.decrypt_failed', result_id: r.id, err: (error as Error).message },
        'cannot decrypt a result; passing it on unchanged',
      );
      return item;
    }
  };
  if (Array.isArray(parsed)) return parsed.map(one);
  if (parsed && typeof parsed === 'object' && Array.isArray((parsed as { data?: unknown }).data)) {
    return { ...(parsed as object), data: (parsed as { data: unknown[] }).data.map(one) };
  }
  return one(parsed);
}
