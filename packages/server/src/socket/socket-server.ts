import type { Server as HttpServer } from 'node:http';
import { Server, type Namespace } from 'socket.io';
import { emitToSurfaces } from './surfaces.js';
import { SOCKET_NAMESPACE, SOCKET_PATH } from '@federa/common';
import type { AppContext, EventBus } from '../context.js';
import { Presence } from './presence.js';
import { installTasksNamespace } from './tasks-namespace.js';
import { SocketRecheck } from './recheck.js';
import { Admission } from './admission.js';
import type { TasksNamespace, TasksServer } from './types.js';

export interface SocketServerOptions {
  /**
   * Engine.IO ping timeout (docs/socket-protocol.md#connecting).
   * @default 60000
   */
  pingTimeoutMs?: number;
}

/**
 * The socket.io server of namespace `/tasks`. Made in three steps because the parts depend on each other:
 * `new SocketServer()` gives {@link events} for `createContext`; {@link bind} installs the protocol once the
 * context exists; {@link attach} hooks it to the HTTP server of the app.
 */
export class SocketServer {
  readonly io: TasksServer;
  readonly nsp: TasksNamespace;
  /** Emits to rooms of `/tasks` (through the adapter, so to every instance when one is installed). */
  readonly events: EventBus;
  /** Handshakes being served, and the pace of admissions (set by {@link bind}). */
  admission: Admission | null = null;
  #presence: Presence | null = null;
  #recheck: SocketRecheck | null = null;
  #sweepTimer: NodeJS.Timeout | undefined;
  #origins: readonly string[] = [];
  #ctx: AppContext | undefined;

  constructor(options: SocketServerOptions = {}) {
    this.io = new Server({
      path: SOCKET_PATH,
      pingTimeout: options.pingTimeoutMs ?? 60_000,
      serveClient: false,
      // Browsers may open sockets only from the origins the API allows (`cors_origins`, default: the server's
      // own page); programs (nodes, clients) send no Origin and are not concerned. Checked per handshake, which
      // covers WebSocket upgrades too (they are not subject to CORS).
      allowRequest: (req, done) => done(null, originAllowed(req.headers, this.#origins)),
    });
    this.nsp = this.io.of(SOCKET_NAMESPACE);
    const nsp = this.nsp;
    const recheck = (): SocketRecheck | null => this.#recheck;
    const ctx = (): AppContext | undefined => this.#ctx;
    this.events = {
      identityChanged(change): void {
        void recheck()?.apply(change);
      },
      emit(room, event, ...args): void {
        emitToSurfaces(
          nsp as unknown as Namespace,
          typeof room === 'string' ? room : [...room],
          event,
          args,
          ctx(),
        );
      },
    };
  }

  /** Installs authentication, rooms, online status and event handling with the server's context. */
  bind(ctx: AppContext): Presence {
    if (this.#presence) throw new Error('the socket server is already bound to a context');
    this.#ctx = ctx;
    this.#origins = ctx.config.cors_origins;
    this.#presence = new Presence(ctx, this.nsp);
    this.admission = new Admission({ maxPending: ctx.config.socket_max_pending });
    installTasksNamespace(ctx, this.nsp, this.#presence, this.admission);
    const recheck = new SocketRecheck(ctx, this.nsp);
    this.#recheck = recheck;
    this.#sweepTimer = setInterval(() => void recheck.sweep(), ctx.config.socket_recheck_seconds * 1000);
    this.#sweepTimer.unref();
    return this.#presence;
  }

  /** Serves socket.io on `/socket.io/` of the HTTP server (the app keeps every other path). */
  attach(httpServer: HttpServer): void {
    this.io.attach(httpServer);
  }

  /**
   * Closes every socket of this instance (clients see the transport close and reconnect, as after any server
   * restart), waits for the resulting status updates, and detaches from the HTTP server without closing it.
   */
  async close(): Promise<void> {
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    // Closing the transports (not a socket.io "disconnect" packet, after which clients would not reconnect).
    this.io.engine?.close();
    await this.#presence?.idle();
    // Let the adapter (Redis, later) release its resources; the HTTP server is closed by the app.
    await this.nsp.adapter.close();
  }
}

/**
 * Whether a socket handshake may go on: no Origin (not a browser), the server's own origin, or an allowed one
 * (`cors_origins`; `*` allows every origin).
 */
export function originAllowed(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  allowed: readonly string[],
): boolean {
  const origin = headers.origin;
  if (origin === undefined || origin === '') return true;
  if (typeof origin !== 'string') return false;
  if (allowed.includes('*') || allowed.includes(origin)) return true;
  const host = headers['x-forwarded-host'] ?? headers.host;
  try {
    return typeof host === 'string' && new URL(origin).host === host;
  } catch {
    return false;
  }
}
