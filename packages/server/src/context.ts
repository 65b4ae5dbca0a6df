import type { FastifyBaseLogger } from 'fastify';
import type { ServerToClientEvent, ServerToClientEvents } from '@federa/common';
import type { ServerConfig } from './config/schema.js';
import type { DatabaseHandle } from './db/handle.js';
import type { TokenService } from './auth/tokens.js';
import type { References } from './http/references.js';
import type { Mailer } from './mail/mailer.js';
import type { LoginThrottle } from './auth/login-throttle.js';
import type { SocketBroker } from './broker/socket-broker.js';
import type { ReadCache } from './http/read-cache.js';
import type { VpnService } from './vpn/vpn-service.js';
import type { ServerAudit } from './audit/server-audit.js';
import type { ResultStore } from './result-store/result-store.js';
import type { Tracing } from '@federa/common/tracing';
import type { ServerMetrics } from './metrics/server-metrics.js';

/**
 * Emits socket events to rooms of namespace `/tasks`; through the broker when several instances run. Events and
 * their arguments are those of `ServerToClientEvents` (docs/socket-protocol.md); rooms come from `SocketRooms`.
 */
export interface EventBus {
  /** Emits to a room, or once to every socket of several rooms. */
  emit<E extends ServerToClientEvent>(
    room: string | readonly string[],
    event: E,
    ...args: Parameters<ServerToClientEvents[E]>
  ): void;
  /**
   * Tells the open sockets that an identity changed (docs/security.md): `ended` disconnects the sockets of the
   * identity (or of one of its sessions), `rooms` re-checks the rooms of a user's sockets (of every user without `id`). Without sockets: absent.
   */
  identityChanged?(change: IdentityChange): void;
}

/** What changed for the sockets of a user or node. */
export type IdentityChange =
  | { what: 'ended'; kind: 'user' | 'node'; id: number; sid?: string }
  | { what: 'rooms'; kind: 'user'; id?: number };

/** Everything a route needs, built once by `buildApp` and reachable as `app.ctx`. */
export interface AppContext {
  config: ServerConfig;
  dbh: DatabaseHandle;
  tokens: TokenService;
  refs: References;
  events: EventBus;
  mailer: Mailer | null;
  /** The message broker connecting several instances (`message_broker`); null for a single instance. */
  broker: SocketBroker | null;
  throttle: LoginThrottle;
  /** Answers of GET requests kept until the database changes; null on PostgreSQL or when turned off. */
  readCache: ReadCache | null;
  /** The VPN between algorithm containers; null when the configuration has no `vpn` section. */
  vpn: VpnService | null;
  /** This instance's audit log (docs/audit.md); null when `audit.enabled` is false or the app was built without one. */
  audit: ServerAudit | null;
  /** Where outputs too large for a JSON body are held (docs/large-results.md). */
  results: ResultStore;
  /** Prometheus metrics (docs/observability.md); absent or null when `metrics.enabled` is false. */
  metrics?: ServerMetrics | null;
  /** OpenTelemetry traces (docs/observability.md#traces); absent or null without the `tracing` key. */
  tracing?: Tracing | null;
  log: FastifyBaseLogger;
  version: string;
}

export const noEvents: EventBus = { emit: () => undefined };
