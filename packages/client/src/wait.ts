/**
 * Waiting for a task to complete: woken by socket.io events (`status_update`, `algorithm_status_change` on
 * namespace `/tasks`, docs/socket-protocol.md#events-from-the-server) and, as a safety net or when no socket can be opened, by polling.
 */
import {
  SOCKET_NAMESPACE,
  SOCKET_PATH,
  type ClientToServerEvents,
  type RunLogUpdatePayload,
  type ServerToClientEvents,
} from '@federa/common';
import { io, type Socket } from 'socket.io-client';

import { WaitTimeoutError } from './errors.js';

/** Options of a wait. */
export interface WaitOptions {
  /**
   * Give up after this many milliseconds with a {@link WaitTimeoutError}. `Infinity` waits as long as it takes.
   * @default 600000 (10 minutes)
   */
  timeoutMs?: number;
  /**
   * Polling interval when no socket is connected. With a socket, the task is also checked every
   * `max(5 × intervalMs, 5000)` ms in case an event was missed.
   * @default 1000
   */
  intervalMs?: number;
  /**
   * Listen to socket.io events. `false` only polls.
   * @default true
   */
  useSocket?: boolean;
  /** Aborts the wait (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** Default of {@link WaitOptions.timeoutMs}. */
export const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
/** Default of {@link WaitOptions.intervalMs}. */
export const DEFAULT_POLL_INTERVAL_MS = 1000;
/** How long to wait for the socket connection before polling alone. */
const SOCKET_CONNECT_TIMEOUT_MS = 5000;

/** How often a wait with a connected socket still reads, in case an event was missed. */
export const safetyIntervalMs = (intervalMs: number): number => Math.max(5 * intervalMs, 5000);

/** An open event subscription. */
export interface EventSubscription {
  close(): void;
  /** Whether its socket is still connected (once it is not, events no longer come: poll). */
  readonly connected: boolean;
}

/** What the socket told: a run changed (`resultId` when the event names one), a run's log grew, or it closed. */
export type TaskSocketEvent =
  | { kind: 'status'; resultId: number | null }
  | { kind: 'log'; update: RunLogUpdatePayload }
  | { kind: 'disconnect' };

/** The id of a result named by an event payload, or null. */
const resultIdOf = (payload: unknown): number | null => {
  const id = (payload as { result_id?: unknown } | null)?.result_id;
  return typeof id === 'number' ? id : null;
};

/** What {@link waitUntil} needs to open a socket. */
export interface SocketSource {
  /** `http://host:port` (socket.io lives at the root, not under the API path). */
  origin: string;
  /** A current access token. */
  accessToken(): Promise<string>;
  /** A fresh access token after the server said the one given was expired. */
  refreshedToken(): Promise<string>;
  log(message: string): void;
}

/**
 * Connects to namespace `/tasks` with the token in the `Authorization` header and calls `onEvent` for every
 * `status_update`, `algorithm_status_change` and `run_log_update`, and when the socket closes. Resolves with
 * `null` when no connection can be made (no socket server, refused, timeout); the caller then polls.
 */
export async function subscribeToTaskEvents(
  source: SocketSource,
  onEvent: (event: TaskSocketEvent) => void,
): Promise<EventSubscription | null> {
  const token = await source.accessToken();
  const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io(
    `${source.origin}${SOCKET_NAMESPACE}`,
    {
      path: SOCKET_PATH,
      extraHeaders: { Authorization: `Bearer ${token}` },
      reconnection: false,
      forceNew: true,
      timeout: SOCKET_CONNECT_TIMEOUT_MS,
    },
  );
  const connected = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), SOCKET_CONNECT_TIMEOUT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.once('connect_error', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!connected) {
    socket.close();
    source.log('No socket.io connection to the server; polling for the task status instead.');
    return null;
  }
  socket.on('status_update', (p) => onEvent({ kind: 'status', resultId: resultIdOf(p) }));
  socket.on('algorithm_status_change', (p) => onEvent({ kind: 'status', resultId: resultIdOf(p) }));
  socket.on('run_log_update', (update) => {
    if (resultIdOf(update) !== null && typeof update.offset === 'number') onEvent({ kind: 'log', update });
  });
  let refreshedOnce = false;
  socket.on('expired_token', () => {
    // The server accepts the connection but tells us the token is no good; reconnect once with a fresh one.
    socket.disconnect();
    if (refreshedOnce) return;
    refreshedOnce = true;
    source.refreshedToken().then(
      (fresh) => {
        socket.io.opts.extraHeaders = { Authorization: `Bearer ${fresh}` };
        socket.connect();
      },
      () => source.log('Could not refresh the token for the socket; polling instead.'),
    );
  });
  socket.on('disconnect', () => onEvent({ kind: 'disconnect' }));
  return {
    close: () => socket.close(),
    get connected() {
      return socket.connected;
    },
  };
}

/**
 * Resolves when `isDone()` is true, checking it at once, after every event of the subscription, and on a
 * timer. Rejects with a {@link WaitTimeoutError} when `timeoutMs` passes first.
 */
export async function waitUntil(
  taskId: number,
  isDone: () => Promise<boolean>,
  subscribe: ((wake: () => void) => Promise<EventSubscription | null>) | null,
  options: WaitOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | null = null;
  let pending = false;
  const poke = (): void => {
    pending = true;
    wake?.();
  };
  const subscription = subscribe ? await subscribe(poke) : null;
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      pending = false;
      if (await isDone()) return;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new WaitTimeoutError(taskId, timeoutMs);
      if (pending) continue;
      const interval = subscription?.connected ? safetyIntervalMs(intervalMs) : intervalMs;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', done);
          wake = null;
          resolve();
        };
        const timer = setTimeout(done, Math.min(interval, remaining));
        options.signal?.addEventListener('abort', done);
        wake = done;
      });
    }
  } finally {
    subscription?.close();
  }
}
