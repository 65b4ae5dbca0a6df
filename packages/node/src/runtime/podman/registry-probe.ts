/**
 * Whether the registry of an image answers at all, asked before a pull on an engine that cannot ask a registry for
 * a digest without pulling (Podman). Podman retries a pull from a registry it cannot reach for seconds before it
 * gives up; a registry that does not answer here would fail that pull anyway, so the local image is used at once.
 * Any HTTP answer on `/v2/` (200, or 401 asking for a login) counts as reachable: the pull then decides.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

import { DOCKER_HUB, parseImageRef } from '../image-ref.js';

/** Docker Hub's API host; every other registry answers on its own name. */
const apiHost = (registry: string): string => (registry === DOCKER_HUB ? 'registry-1.docker.io' : registry);

function answers(url: string, timeoutMs: number): Promise<string | undefined> {
  const request = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(undefined);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve(err.message));
    req.end();
  });
}

/** undefined when the registry of `ref` answers over HTTPS or HTTP; otherwise why it does not. */
export async function registryUnreachable(ref: string, timeoutMs: number): Promise<string | undefined> {
  const host = apiHost(parseImageRef(ref).registry);
  const secure = await answers(`https://${host}/v2/`, timeoutMs);
  if (secure === undefined) return undefined;
  const plain = await answers(`http://${host}/v2/`, timeoutMs);
  return plain === undefined ? undefined : `registry ${host} does not answer: ${secure}`;
}
