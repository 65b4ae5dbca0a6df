import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Cryptor } from '@federa/common';
import type { RunTraces } from '../tracing/run-traces.js';
import type { RunEvents, WaitLimits } from './task-waits.js';

/** How the node's local proxy (proxy-server.ts) is started. */
export interface ProxyOptions {
  /** Upstream `<server_url>[:<port>]<api_path>`. */
  readonly apiBase: string;
  readonly cryptor: Cryptor;
  readonly log: Logger;
  /** Address to listen on: the private network's gateway for a node on the host; 127.0.0.1 in tests. */
  readonly host: string;
  /** 0 = any free port. */
  readonly port: number;
  /**
   * Attempts per upstream call.
   * @default 3
   */
  readonly attempts?: number;
  /**
   * Time limit of one upstream call, in milliseconds. The read of a stored output has none on the whole call: it
   * is given up when no byte came for this long (docs/large-results.md#limits).
   * @default 60000
   */
  readonly requestTimeoutMs?: number;
  /** What the node's socket hears about runs: wakes the long-polls of `GET /task/{id}?wait=`. */
  readonly events?: RunEvents;
  /** Limits of the long-polls. */
  readonly waits?: WaitLimits;
  /** Called as each request arrives (the node's metrics time and count it). */
  readonly observe?: (req: IncomingMessage, res: ServerResponse) => void;
  /** The runs' spans: each call gets one, and its calls to the server carry it (docs/observability.md#traces). */
  readonly traces?: RunTraces;
}

/** The path under which the proxy answers vantage6 4.x algorithms (their `API_PATH`; docs/vantage6-4.md). */
export const V4_PROXY_PATH = '/v4';
