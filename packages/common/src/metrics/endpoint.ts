import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/** Who may read a metrics endpoint (docs/observability.md#access). */
export interface MetricsAccess {
  /** When set, a request must carry `Authorization: Bearer <token>`; from any address. */
  token?: string | undefined;
}

/** The Prometheus text of a registry, made at scrape time. */
export type MetricsText = () => Promise<{ contentType: string; body: string }>;

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Whether a scrape may be answered. With a token: only a request that carries it. Without: only a request from a
 * loopback address that no proxy forwarded (a reverse proxy on the same host makes every caller look local, and
 * says so in `Forwarded`/`X-Forwarded-For`).
 * @returns null when allowed, else why not (answered 403 with code `metrics_refused`).
 */
export function checkMetricsAccess(
  access: MetricsAccess,
  remoteAddress: string | undefined,
  headers: IncomingHttpHeaders,
): string | null {
  if (access.token !== undefined) {
    const header = headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    // Compared as digests so that neither the length nor the content leaks through timing.
    if (given !== '' && timingSafeEqual(digest(given), digest(access.token))) return null;
    return 'The metrics endpoint wants the bearer token its configuration names.';
  }
  const forwarded = headers.forwarded !== undefined || headers['x-forwarded-for'] !== undefined;
  if (remoteAddress !== undefined && LOOPBACK.test(remoteAddress) && !forwarded) return null;
  return 'The metrics endpoint answers only the loopback address unless its configuration names a token.';
}

/** A listener of its own for a metrics endpoint: `GET <path>` only. */
export interface MetricsListener {
  server: Server;
  /** The port listened on. */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `text` at `path` on `ip:port` (port 0: any free one), guarded by {@link checkMetricsAccess}. Everything
 * else answers 404; a failed collection answers 500 with a fixed text (the cause goes to `onError`).
 */
export async function listenMetrics(options: {
  ip: string;
  port: number;
  path: string;
  access: MetricsAccess;
  text: MetricsText;
  onError?: (error: unknown) => void;
}): Promise<MetricsListener> {
  const json = (status: number, msg: string, code: string): [number, Record<string, string>, string] => [
    status,
    { 'content-type': 'application/json; charset=utf-8' },
    JSON.stringify({ msg, code }),
  ];
  const server = createServer((req, res) => {
    const answer = (status: number, headers: Record<string, string>, body: string): void => {
      res.writeHead(status, { ...headers, 'x-content-type-options': 'nosniff' });
      res.end(body);
    };
    const path = (req.url ?? '/').split('?')[0];
    if (path !== options.path) return answer(...json(404, `No such endpoint: ${path}`, 'route_not_found'));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return answer(...json(405, 'Only GET reads the metrics.', 'method_not_allowed'));
    }
    const refused = checkMetricsAccess(options.access, req.socket.remoteAddress, req.headers);
    if (refused !== null) return answer(...json(403, refused, 'metrics_refused'));
    options.text().then(
      ({ contentType, body }) => answer(200, { 'content-type': contentType }, body),
      (error: unknown) => {
        options.onError?.(error);
        answer(...json(500, 'The metrics could not be collected.', 'internal'));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.ip, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
