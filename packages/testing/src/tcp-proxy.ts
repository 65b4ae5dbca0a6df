import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

interface Pair {
  client: Socket;
  upstream: Socket;
  frozen: boolean;
}

/**
 * A TCP proxy for tests, between the server and a service (PostgreSQL, Redis) or between a node and the server.
 * It plays what goes wrong on a link, never touching the shared service itself: the firewall that silently drops
 * idle connections ({@link freeze} stops forwarding on every current connection without closing it: both ends see
 * a half-open connection that never answers, while new connections still work), an outage ({@link outage},
 * {@link cut}), a server in trouble ({@link answer}).
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<Pair>();
  #port = 0;
  #outage: 'reset' | 'silent' | null = null;
  #status: number | undefined;
  #injected = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.#server = createServer((client) => this.#accept(client));
  }

  /**
   * Starts a proxy on `listen`:`port` (default 127.0.0.1 and a free port) to `targetHost:targetPort`. A node in a
   * container reaches a proxy listening on `0.0.0.0`.
   */
  static async start(
    targetHost: string,
    targetPort: number,
    port = 0,
    listen = '127.0.0.1',
  ): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once('error', reject);
      proxy.#server.listen(port, listen, () => resolve());
    });
    proxy.#port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  get port(): number {
    return this.#port;
  }

  /** Connections open now (frozen or not). */
  get connections(): number {
    return this.#pairs.size;
  }

  /** How many requests were answered with the status of {@link answer} so far. */
  get injected(): number {
    return this.#injected;
  }

  #accept(client: Socket): void {
    if (this.#outage === 'reset') {
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    if (this.#status !== undefined) {
      const code = this.#status;
      client.on('error', () => undefined);
      client.once('data', () => {
        this.#injected += 1;
        const body = JSON.stringify({ msg: 'injected fault', code: 'internal' });
        client.end(
          `HTTP/1.1 ${code} Injected\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
      });
      return;
    }
    const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
    const pair: Pair = { client, upstream, frozen: this.#outage === 'silent' };
    this.#pairs.add(pair);
    client.on('data', (d) => {
      if (!pair.frozen) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!pair.frozen) client.write(d);
    });
    const end = (): void => {
      // A frozen connection carries nothing, not even its close: the other side never learns.
      if (pair.frozen) return;
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }

  /** Silently stops forwarding on every current connection; returns how many were frozen. */
  freeze(): number {
    let n = 0;
    for (const pair of this.#pairs)
      if (!pair.frozen) {
        pair.frozen = true;
        n += 1;
      }
    return n;
  }

  /**
   * Plays an outage of the service: `reset` resets every connection and every new one at once (a database
   * restarting, a network reset); `silent` freezes every connection and every new one (a cut cable, a firewall
   * dropping packets); `null` ends the outage (new connections work again; frozen ones stay dead).
   */
  outage(mode: 'reset' | 'silent' | null): void {
    this.#outage = mode;
    if (mode === null) this.#status = undefined;
    if (mode === 'reset') this.#resetAll();
    else if (mode === 'silent') this.freeze();
  }

  /** Resets every connection through the proxy, and every new one until {@link restore}. */
  cut(): void {
    this.outage('reset');
  }

  /** Resets every connection, then answers every new HTTP request with `status` until {@link restore}. */
  answer(status: number): void {
    this.#status = status;
    this.#resetAll();
  }

  /** Ends an outage or injected answers: new connections are forwarded again. */
  restore(): void {
    this.outage(null);
  }

  #resetAll(): void {
    for (const pair of this.#pairs) {
      pair.client.resetAndDestroy();
      pair.upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** Closes every connection (both ends see it close), keeps accepting new ones. */
  dropAll(): void {
    for (const pair of this.#pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** Stops accepting and closes every connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.dropAll();
    await closed;
  }
}
