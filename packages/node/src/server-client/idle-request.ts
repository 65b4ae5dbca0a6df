/**
 * A request to the server whose only time limit is idleness (docs/large-results.md#limits): a large output going up
 * (the upload) or coming down (the proxy reading a sub-task's output) takes as long as the link needs, and the
 * connection is given up once nothing moved on it for `idleMs`, in either direction.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Nothing moved on the connection for the idle limit: the request was given up. */
export class IdleTimeoutError extends Error {
  override readonly name = 'IdleTimeoutError';
  constructor(readonly idleMs: number) {
    super(`nothing moved for ${idleMs} ms`);
  }
}

export interface IdleRequest {
  /** The request: its body is written to it, or it is ended. */
  readonly req: ClientRequest;
  /**
   * The answer, once its head arrived. Its body is read under the same idle limit: when nothing comes for `idleMs`
   * the body fails with {@link IdleTimeoutError}, as the request does.
   */
  readonly response: Promise<IncomingMessage>;
}

/** Opens `method url` with node:http(s), bounded by idleness alone (no limit on the whole exchange). */
export function openIdleRequest(
  method: string,
  url: string,
  options: { headers: Record<string, string>; idleMs: number; signal?: AbortSignal },
): IdleRequest {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  const req = send(url, {
    method,
    headers: options.headers,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  let answer: IncomingMessage | undefined;
  req.setTimeout(options.idleMs, () => {
    const error = new IdleTimeoutError(options.idleMs);
    answer?.destroy(error);
    req.destroy(error);
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', (res: IncomingMessage) => {
      answer = res;
      resolve(res);
    });
    req.once('error', reject);
  });
  return { req, response };
}
