import type { Server } from 'socket.io';

/**
 * A message broker that connects the socket.io servers of several Federa instances: an emit to a room on one
 * instance (including `ctx.events.emit` from REST handlers) reaches the sockets in that room on every instance, and
 * `fetchSockets()` counts sockets cluster-wide (the online status relies on it). See docs/scaling.md.
 *
 * Implementations: {@link RedisSocketBroker} (the official socket.io Redis adapter). Made by `createSocketBroker`.
 */
export interface SocketBroker {
  /** Where the broker is, without credentials, e.g. `redis://10.0.0.5:6379 (channel federa)`. */
  describe(): string;
  /**
   * Connects to the broker; rejects when it cannot be reached within the start-up timeout (the server then does
   * not start: several instances without their broker would silently lose events).
   */
  connect(): Promise<void>;
  /** Installs the broker's socket.io adapter on every namespace of `io`. Call after {@link connect}. */
  install(io: Server): void;
  /** True when the broker answers now (for `/health`); never throws. */
  reachable(): Promise<boolean>;
  /** Closes the broker connections, so nothing keeps the process alive. Safe to call more than once. */
  close(): Promise<void>;
}
