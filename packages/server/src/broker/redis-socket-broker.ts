import { Redis, type RedisOptions } from 'ioredis';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Server } from 'socket.io';
import type { FastifyBaseLogger } from 'fastify';
import { SOCKET_NAMESPACE } from '@federa/common';
import type { SocketBroker } from './socket-broker.js';

/** A `message_broker` URI problem; the message never contains the password. */
export class BrokerUriError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokerUriError';
  }
}

export interface RedisBrokerTarget {
  host: string;
  port: number;
  /** Redis logical database; note that Redis pub/sub ignores it (channels are server-wide). */
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
  /** Prefix of the pub/sub channels; instances of one federation share it, other federations use another. */
  channel: string;
}

export const DEFAULT_BROKER_CHANNEL = 'federa';

/**
 * Parses `redis://[[user]:password@]host[:port][/db][?channel=name]` (`rediss://` for TLS). `channel` separates
 * federations sharing one Redis server: Redis pub/sub channels are server-wide, the `/db` number does not separate.
 */
export function parseRedisUri(uri: string): RedisBrokerTarget {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new BrokerUriError('must look like redis://host:6379 (or rediss:// for TLS)');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new BrokerUriError(
      `unsupported scheme '${url.protocol.replace(/:$/, '')}'; use redis:// or rediss://`,
    );
  if (!url.hostname) throw new BrokerUriError('has no host, e.g. redis://host:6379');
  const port = url.port === '' ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d+$/.test(dbText))
    throw new BrokerUriError(`the database after the host must be a number, got '${dbText}'`);
  for (const key of url.searchParams.keys())
    if (key !== 'channel')
      throw new BrokerUriError(`unknown parameter '${key}' (only 'channel' is understood)`);
  const channel = url.searchParams.get('channel') ?? DEFAULT_BROKER_CHANNEL;
  if (!/^[A-Za-z0-9_.:-]{1,100}$/.test(channel))
    throw new BrokerUriError('channel may hold letters, digits and _ . : - (at most 100)');
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    db: dbText === '' ? 0 : Number(dbText),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    tls: url.protocol === 'rediss:',
    channel,
  };
}

export interface RedisSocketBrokerOptions {
  log: FastifyBaseLogger;
  /**
   * How long {@link RedisSocketBroker.connect} waits for Redis.
   * @default 10000
   */
  connectTimeoutMs?: number;
  /**
   * How long a cluster-wide request (`fetchSockets()`) waits for the other instances.
   * @default 5000
   */
  requestsTimeoutMs?: number;
}

/** How long `/health` waits for Redis to answer PING. */
const PING_TIMEOUT_MS = 2000;

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });

/**
 * The official socket.io Redis adapter (`@socket.io/redis-adapter`, classic pub/sub) over two ioredis connections:
 * one publishes, one is subscribed. ioredis reconnects on its own after an outage; events emitted in its first
 * seconds are queued by ioredis and published once Redis is back, later ones are dropped (never an unhandled
 * rejection: the adapter publishes without awaiting). `/health` reports the broker unreachable meanwhile. Once both
 * connections are back, every socket of this instance is asked to reconnect: clients read again on reconnecting
 * what they may have missed (nodes fetch their open runs), so an outage delays events and loses none.
 */
export class RedisSocketBroker implements SocketBroker {
  readonly target: RedisBrokerTarget;
  readonly #pub: Redis;
  readonly #sub: Redis;
  readonly #log: FastifyBaseLogger;
  readonly #connectTimeoutMs: number;
  readonly #requestsTimeoutMs: number;
  #down = false;
  /** Events dropped since the outage began (logged once per outage, with the count at recovery). */
  #lost = 0;
  #io: Server | null = null;
  #closing: Promise<void> | null = null;

  constructor(target: RedisBrokerTarget, options: RedisSocketBrokerOptions) {
    this.target = target;
    this.#log = options.log;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.#requestsTimeoutMs = options.requestsTimeoutMs ?? 5000;
    const redisOptions: RedisOptions = {
      host: target.host,
      port: target.port,
      db: target.db,
      ...(target.username !== undefined ? { username: target.username } : {}),
      ...(target.password !== undefined ? { password: target.password } : {}),
      ...(target.tls ? { tls: { servername: target.host } } : {}),
      lazyConnect: true,
      connectionName: 'federa-server',
      maxRetriesPerRequest: 5,
      keepAlive: 30_000,
      retryStrategy: (times) => Math.min(times * 200, 5000),
    };
    this.#pub = new Redis(redisOptions);
    this.#sub = new Redis(redisOptions);
    for (const [role, client] of [
      ['publisher', this.#pub],
      ['subscriber', this.#sub],
    ] as const) {
      // Without a listener ioredis prints every reconnection failure; log only the change of state.
      client.on('error', (error: Error) => {
        if (this.#down || this.#closing) return;
        this.#down = true;
        this.#log.warn(
          { event: 'broker.unreachable', broker: this.describe(), role, err: { message: error.message } },
          'the message broker cannot be reached: socket events do not reach the other instances until it is back',
        );
      });
      client.on('ready', () => {
        if (!this.#down || this.#pub.status !== 'ready' || this.#sub.status !== 'ready') return;
        this.#down = false;
        const lost = this.#lost;
        this.#lost = 0;
        this.#log.info(
          { event: 'broker.reconnected', broker: this.describe(), role, events_lost: lost },
          'the message broker is back',
        );
        this.#resync();
      });
    }
  }

  /**
   * Closes the connection of every socket of this instance (not a server disconnect, which clients take as final):
   * socket.io and python-socketio clients reconnect, and Federa and vantage6 nodes fetch their open runs and the
   * state of the runs they wait on when they connect. The admission control spreads the returning handshakes.
   */
  #resync(): void {
    const io = this.#io;
    if (!io || this.#closing) return;
    const sockets = [...io.of(SOCKET_NAMESPACE).sockets.values()];
    this.#log.info(
      { event: 'broker.resync', sockets: sockets.length },
      'asking the sockets of this instance to reconnect and read again what the outage may have hidden',
    );
    for (const socket of sockets) socket.conn.close();
  }

  /** The adapter's publishes are not awaited: a failed one is counted here instead of crashing the process. */
  #publishFailed(error: unknown): number {
    if (this.#closing) return 0;
    if (this.#lost++ === 0)
      this.#log.warn(
        { event: 'broker.events_lost', broker: this.describe(), err: { message: (error as Error).message } },
        'socket events cannot reach the other instances while the message broker is away; sockets will be asked to read again when it is back',
      );
    return 0;
  }

  /** The publishing connection as the adapter sees it: `publish` never rejects. */
  #guardedPublisher(): Redis {
    const pub = this.#pub;
    return new Proxy(pub, {
      get: (target, property) => {
        if (property === 'publish')
          return (channel: string | Buffer, message: string | Buffer): Promise<number> =>
            target.publish(channel, message).catch((error: unknown) => this.#publishFailed(error));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  describe(): string {
    const host = this.target.host.includes(':') ? `[${this.target.host}]` : this.target.host;
    return `${this.target.tls ? 'rediss' : 'redis'}://${host}:${this.target.port} (channel ${this.target.channel})`;
  }

  async connect(): Promise<void> {
    try {
      await withTimeout(
        Promise.all([this.#pub.connect(), this.#sub.connect()]),
        this.#connectTimeoutMs,
        'connecting to the message broker',
      );
    } catch (error) {
      this.#pub.disconnect();
      this.#sub.disconnect();
      throw new Error(
        `the message broker ${this.describe()} cannot be reached (${(error as Error).message}); start Redis or fix message_broker`,
        { cause: error },
      );
    }
  }

  install(io: Server): void {
    this.#io = io;
    io.adapter(
      createAdapter(this.#guardedPublisher(), this.#sub, {
        key: this.target.channel,
        requestsTimeout: this.#requestsTimeoutMs,
        publishOnSpecificResponseChannel: true,
      }),
    );
  }

  async reachable(): Promise<boolean> {
    if (this.#closing || this.#pub.status !== 'ready' || this.#sub.status !== 'ready') return false;
    try {
      return (await withTimeout(this.#pub.ping(), PING_TIMEOUT_MS, 'PING')) === 'PONG';
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all(
        [this.#pub, this.#sub].map(async (client) => {
          if (client.status === 'ready') {
            try {
              await withTimeout(client.quit(), 2000, 'QUIT');
              return;
            } catch {
              // fall through: drop the connection
            }
          }
          client.disconnect();
        }),
      );
    })();
    return this.#closing;
  }
}
