import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeMetrics } from './node-metrics.js';

/**
 * The routes an algorithm calls through the proxy, as patterns. Anything else is `other`: the path comes from a
 * container, and a label made from it would let one algorithm grow the node's series without end.
 */
const ROUTES = [
  '/task',
  '/task/:id',
  '/task/:id/result',
  '/result',
  '/result/:id',
  '/result/:id/output',
  '/run',
  '/run/:id',
  '/organization',
  '/organization/:id',
  '/collaboration',
  '/collaboration/:id',
  '/node',
  '/node/:id',
  '/port',
  '/vpn/algorithm/addresses',
  '/health',
  '/version',
];
const KNOWN = new Set(ROUTES);

/** The route pattern of a proxy path: numbers become `:id`; a path of no known route is `other`. */
export function proxyRoute(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
  const pattern = path.replace(/\/\d+(?=\/|$)/g, '/:id');
  return KNOWN.has(pattern) ? pattern : 'other';
}

/** Times each proxy request and counts the bytes of its body and of its answer. */
export function proxyObserver(metrics: NodeMetrics): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    let down = 0;
    req.on('data', (chunk: Buffer) => metrics.uploadedBytes.inc({ via: 'proxy' }, chunk.length));
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    const count = (chunk: unknown): void => {
      if (typeof chunk === 'string') down += Buffer.byteLength(chunk);
      else if (chunk instanceof Uint8Array) down += chunk.length;
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      count(chunk);
      return write(chunk, ...rest);
    }) as ServerResponse['write'];
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] !== 'function') count(args[0]);
      return end(...args);
    }) as ServerResponse['end'];
    res.once('close', () => {
      metrics.downloadedBytes.inc({ via: 'proxy' }, down);
      metrics.proxyRequests.observe(
        { method: req.method ?? 'GET', route: proxyRoute(req.url), status_code: String(res.statusCode) },
        (performance.now() - started) / 1000,
      );
    });
  };
}
