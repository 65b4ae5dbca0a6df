/**
 * The node's socket.io connection to the server's `/tasks` namespace (docs/socket-protocol.md). The access token travels
 * in the handshake's `Authorization` header. The channel reconnects by itself ({@link ReconnectBackoff}: jittered
 * exponential back-off, and the server's `retry_after_ms` when it answers `server_busy`); every (re)connect is
 * reported through `onConnect` so the node resynchronises its open work.
 *
 * Events and payloads are the shared map of `@federa/common` (socket-events.ts).
 */
import type { Logger } from 'pino';
import { io, type Socket } from 'socket.io-client';
import {
  ADMISSION_HEADER,
  ADMISSION_RETRY_AFTER,
  SOCKET_NAMESPACE,
  SOCKET_PATH,
  type ClientToServerEvents,
  type KillListEntry,
  type NodeInfoPayload,
  type RunLogAck,
  type RunLogBatch,
  type ServerToClientEvents,
} from '@federa/common';
import { ReconnectBackoff, retryHint } from './backoff.js';

export interface AlgorithmStatusChange {
  readonly node_id: number;
  readonly status: string;
  readonly result_id: number;
  readonly task_id: number;
  readonly collaboration_id: number;
  readonly organization_id: number;
  readonly parent_id: number | null;
}

/** `kill_containers`, either variant, read defensively. */
export interface KillContainersPayload {
  readonly collaboration_id?: number;
  readonly node_id?: number;
  readonly kill_list?: readonly KillListEntry[];
}

export interface SocketHandlers {
  onConnect(): void;
  onNewTask(taskId: number): void;
  /** The server says the handshake token is invalid or expired: refresh it and call `reconnect`. */
  onExpiredToken(): void;
  onKill(payload: KillContainersPayload): void;
  /** A run of the collaboration changed (`status_update`, `algorithm_status_change`): wakes the proxy's waits. */
  onRunChange?(change: { taskId?: number; resultId?: number }): void;
}

export interface SocketChannelOptions {
  /** `<server_url>[:<port>]` — socket.io lives at the host root, not under api_path. */
  readonly serverBase: string;
  readonly token: string;
  readonly log: Logger;
  readonly handlers: SocketHandlers;
  /**
   * Keep-alive `ping` period in milliseconds (3.8.2+ nodes).
   * @default 60000
   */
  readonly pingIntervalMs?: number;
  /**
   * Longest wait between two reconnection attempts, in milliseconds.
   * @default 30000
   */
  readonly reconnectDelayMaxMs?: number;
  /**
   * Shortest wait before reconnecting after a loss, in milliseconds (the first wait is between half and all of it).
   * @default 1000
   */
  readonly reconnectDelayMs?: number;
  /** A number in [0, 1) for the jitter; tests pass their own. @default Math.random */
  readonly random?: () => number;
}

export class SocketChannel {
  readonly #socket: Socket<ServerToClientEvents, ClientToServerEvents>;
  readonly #log: Logger;
  #pingTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #closing = false;
  readonly #backoff: ReconnectBackoff;

  constructor(options: SocketChannelOptions) {
    this.#log = options.log;
    const url = `${options.serverBase.replace(/\/$/, '')}${SOCKET_NAMESPACE}`;
    this.#socket = io(url, {
      path: SOCKET_PATH,
      // The server's retry hint is honoured (#retry): the server may keep the connection open after a refusal.
      extraHeaders: { Authorization: `Bearer ${options.token}`, [ADMISSION_HEADER]: ADMISSION_RETRY_AFTER },
      // A WebSocket at once (one HTTP upgrade instead of a polling handshake, its requests and then the upgrade);
      // long-polling only when the WebSocket cannot be opened (a proxy that does not pass it).
      transports: ['websocket', 'polling'],
      tryAllTransports: true,
      // Reconnection is the channel's own (#retry): socket.io-client's does not hear the server's retry hint.
      reconnection: false,
      timeout: 60_000,
      autoConnect: false,
    });
    this.#backoff = new ReconnectBackoff({
      baseMs: options.reconnectDelayMs ?? 1_000,
      maxMs: options.reconnectDelayMaxMs ?? 30_000,
      ...(options.random ? { random: options.random } : {}),
    });
    const s = this.#socket;
    const h = options.handlers;
    s.on('connect', () => {
      this.#backoff.reset();
      this.#log.info({ event: 'socket.connected', sid: s.id }, 'connected to the server');
      h.onConnect();
    });
    s.on('disconnect', (reason) => {
      if (this.#closing) return;
      // The server closed this socket on purpose (its session ended): the node refreshes and calls reconnect().
      if (reason === 'io server disconnect' || reason === 'io client disconnect') return;
      const waitMs = this.#retry();
      this.#log.warn(
        { event: 'socket.disconnected', reason, retry_in_ms: waitMs },
        'disconnected from the server; reconnecting',
      );
    });
    s.on('connect_error', (err) => {
      if (this.#closing) return;
      const hint = retryHint(err);
      const waitMs = this.#retry(hint);
      if (hint !== undefined)
        this.#log.info(
          { event: 'socket.server_busy', retry_in_ms: waitMs },
          'the server is busy and gave a time to come back',
        );
      else
        this.#log.warn(
          { event: 'socket.connect_error', err: err.message, retry_in_ms: waitMs },
          'cannot connect to the server; retrying with backoff',
        );
    });
    s.on('new_task', (taskId: number) => {
      const id = Number(taskId);
      if (Number.isInteger(id)) h.onNewTask(id);
    });
    // Servers send it once with "" (3.3–3.5) and once without argument (3.6+): react once per burst.
    let lastExpired = 0;
    s.on('expired_token', () => {
      if (Date.now() - lastExpired < 2_000) return;
      lastExpired = Date.now();
      this.#log.info({ event: 'socket.expired_token' }, 'the server reports an expired token');
      h.onExpiredToken();
    });
    s.on('kill_containers', (payload) => h.onKill((payload ?? {}) as KillContainersPayload));
    s.on('message', (text) => this.#log.debug({ event: 'socket.message', text }, 'server message'));
    const id = (value: unknown): number | undefined =>
      Number.isInteger(Number(value)) && value !== null && value !== '' ? Number(value) : undefined;
    s.on('status_update', (p) => {
      const resultId = id(p?.result_id);
      if (resultId !== undefined) h.onRunChange?.({ resultId });
    });
    s.on('algorithm_status_change', (p) => {
      const taskId = id(p?.task_id);
      const resultId = id(p?.result_id);
      h.onRunChange?.({
        ...(taskId !== undefined ? { taskId } : {}),
        ...(resultId !== undefined ? { resultId } : {}),
      });
      if (p?.status && !['pending', 'initializing', 'active', 'completed'].includes(p.status)) {
        this.#log.info(
          { event: 'socket.algorithm_failed', ...p },
          'an algorithm run failed in the collaboration',
        );
      }
    });
    const pingEvery = options.pingIntervalMs ?? 60_000;
    this.#pingTimer = setInterval(() => {
      if (s.connected) s.emit('ping');
    }, pingEvery);
    this.#pingTimer.unref();
  }

  get connected(): boolean {
    return this.#socket.connected;
  }

  connect(): void {
    this.#socket.connect();
  }

  /** Connects again after the back-off's wait (or the server's hint); returns the wait in ms. */
  #retry(hintMs?: number): number {
    clearTimeout(this.#retryTimer);
    const waitMs = this.#backoff.next(hintMs);
    this.#retryTimer = setTimeout(() => {
      if (!this.#closing && !this.#socket.connected) this.#socket.connect();
    }, waitMs);
    return waitMs;
  }

  /** New handshake header for the next (re)connection. */
  setToken(token: string): void {
    const opts = this.#socket.io.opts;
    opts.extraHeaders = { ...(opts.extraHeaders ?? {}), Authorization: `Bearer ${token}` };
  }

  /** Disconnects and connects again with the current header (after a token refresh). */
  reconnect(): void {
    clearTimeout(this.#retryTimer);
    this.#socket.disconnect();
    this.#socket.connect();
  }

  emitNodeInfo(info: NodeInfoPayload): void {
    if (this.#socket.connected) this.#socket.emit('node_info_update', info);
  }

  emitStatus(change: AlgorithmStatusChange): void {
    if (this.#socket.connected) this.#socket.emit('algorithm_status_change', change);
  }

  /**
   * Sends one batch of a run's live log and resolves with the server's answer (docs/run-logs.md); rejects when the
   * socket is not connected or the answer does not come within `timeoutMs`.
   */
  async sendRunLog(batch: RunLogBatch, timeoutMs = 10_000): Promise<RunLogAck> {
    if (!this.#socket.connected) throw new Error('not connected to the server');
    return this.#socket.timeout(timeoutMs).emitWithAck('run_log', batch);
  }

  /** Graceful disconnect: the server sees a clean close and marks the node offline at once, not after a timeout. */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#pingTimer) clearInterval(this.#pingTimer);
    clearTimeout(this.#retryTimer);
    if (!this.#socket.connected) {
      this.#socket.disconnect();
      return;
    }
    await new Promise<void>((resolve) => {
      const done = setTimeout(resolve, 2_000);
      this.#socket.once('disconnect', () => {
        clearTimeout(done);
        resolve();
      });
      this.#socket.disconnect();
    });
  }
}
