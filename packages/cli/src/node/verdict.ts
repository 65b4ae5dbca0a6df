/**
 * The node's own verdict on its start, read from its log lines (JSON, one object a line; docs/cli.md
 * "What `vnode start` reports"). `vnode start` shows it rather than guessing from the host, because the server the
 * node sees from inside its container is not always the one this host sees.
 */

export type NodeVerdict =
  /** Logged in, socket connected: the node takes work. */
  | { kind: 'ready' }
  /** Logged in; still setting up (encryption, network, socket). */
  | { kind: 'logged-in' }
  /** The server refused the API key; the node stopped. */
  | { kind: 'wrong-key'; message: string }
  /** The server cannot be reached from inside the container; the node keeps trying. */
  | { kind: 'unreachable'; error: string; url: string | undefined; attempts: number }
  /** `encryption.enabled` does not match the collaboration; the node stopped. */
  | { kind: 'encryption'; message: string }
  /** Any other reason the node stopped while starting. */
  | { kind: 'failed'; message: string }
  /** Nothing decisive logged yet. */
  | { kind: 'starting' };

interface LogRecord {
  event?: unknown;
  err?: unknown;
  url?: unknown;
  attempt?: unknown;
  status?: unknown;
  msg?: unknown;
}

const parse = (line: string): LogRecord | undefined => {
  const start = line.indexOf('{');
  if (start < 0) return undefined;
  try {
    const value: unknown = JSON.parse(line.slice(start));
    return value !== null && typeof value === 'object' ? (value as LogRecord) : undefined;
  } catch {
    return undefined;
  }
};

/** The verdict after these log lines (the latest decisive line wins). */
export function nodeVerdict(lines: readonly string[]): NodeVerdict {
  let verdict: NodeVerdict = { kind: 'starting' };
  for (const line of lines) {
    const rec = parse(line);
    if (!rec || typeof rec.event !== 'string') continue;
    const err = typeof rec.err === 'string' ? rec.err : '';
    switch (rec.event) {
      case 'node.ready':
        verdict = { kind: 'ready' };
        break;
      case 'login':
        verdict = { kind: 'logged-in' };
        break;
      case 'login.retry':
        // A status means the server answered (e.g. 500 while it starts): still reachable.
        if (rec.status === undefined)
          verdict = {
            kind: 'unreachable',
            error: err || 'no answer',
            url: typeof rec.url === 'string' ? rec.url : undefined,
            attempts: typeof rec.attempt === 'number' ? rec.attempt + 1 : 1,
          };
        break;
      case 'node.start_failed':
        if (/wrong API key/i.test(err)) verdict = { kind: 'wrong-key', message: err };
        else if (/encryption\.enabled|encrypted/i.test(err)) verdict = { kind: 'encryption', message: err };
        else verdict = { kind: 'failed', message: err || 'the node did not start' };
        break;
      default:
        break;
    }
  }
  return verdict;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '0.0.0.0']);

/** What to do when the node cannot reach its server at `serverUrl` (the configuration's `server_url`). */
export function unreachableAdvice(serverUrl: string): string {
  let host = '';
  try {
    host = new URL(serverUrl).hostname;
  } catch {
    /* not a URL: the general advice below */
  }
  if (LOOPBACK.has(host))
    return (
      `'${host}' inside the node's container is the container itself, not this machine: set server_url to ` +
      `http://host.docker.internal (a server on this machine) or to the server's address on your network, ` +
      `e.g. vnode set -n <name> server_url=http://host.docker.internal`
    );
  return (
    'check that the server runs and that its address, port and api_path in the node configuration are right ' +
    '(the node connects from inside a Docker container)'
  );
}
