import pg from 'pg';

/** Where the listener reports what it sees; the server passes its logger. */
interface ListenerLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The channel `store_catalogue_bump()` notifies at every committed change of the catalogue (migration 0029). */
export const CATALOGUE_CHANNEL = 'federa_store_catalogue';

/** Tells the catalogue cache, without a look at the database, whether the catalogue may have changed. */
export interface CatalogueSignal {
  /**
   * A tag that changes whenever the catalogue may have changed; undefined while the listener is not connected,
   * when only the database can tell (catalogue-cache.ts then reads the version number as before).
   */
  tag(): string | undefined;
  /** Called at every change of {@link tag}. */
  onChange(listener: () => void): void;
  /** A store write of this process: the tag moves at once, before its notification comes back. */
  changed(): void;
  close(): Promise<void>;
}

/**
 * PostgreSQL: one connection of its own that `LISTEN`s on {@link CATALOGUE_CHANNEL}. The trigger notifies at
 * commit, whichever instance or client wrote, so every instance drops its kept pages within a notification's
 * delivery. Nothing is trusted while the connection is down: the tag is then undefined, and when it is back the tag
 * moves, since changes may have been missed meanwhile. A lost connection is opened again after `retryMs`.
 */
export class CatalogueListener implements CatalogueSignal {
  readonly #uri: string;
  readonly #log: ListenerLog;
  readonly #retryMs: number;
  #generation = 0;
  #live = false;
  #closed = false;
  #lost = false;
  #client: pg.Client | null = null;
  #retry: NodeJS.Timeout | null = null;
  readonly #listeners: (() => void)[] = [];

  /** How often the connection is asked a trivial query, and how long its answer may take. */
  readonly #probeMs: number;
  #probe: NodeJS.Timeout | null = null;

  constructor(uri: string, log: ListenerLog, retryMs = 1000, probeMs = 5000) {
    this.#uri = uri;
    this.#log = log;
    this.#retryMs = retryMs;
    this.#probeMs = probeMs;
  }

  /** Connects; resolves once listening or after a failed try (a retry is then planned), never rejects. */
  async start(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.#uri,
      // How an administrator tells this connection apart in pg_stat_activity.
      application_name: 'federa-store-catalogue',
      keepAlive: true,
      query_timeout: this.#probeMs,
      connectionTimeoutMillis: this.#probeMs,
    });
    this.#client = client;
    const lost = (error?: Error) => {
      if (this.#client !== client) return;
      this.#client = null;
      this.#stopProbe();
      this.#down();
      client.end().catch(() => undefined);
      if (this.#closed) return;
      this.#lost = true;
      this.#log.warn(
        { event: 'store.catalogue_unheard', err: error?.message ?? 'connection ended' },
        'store: catalogue notifications lost; the catalogue version is read from the database until they are back',
      );
      this.#retry = setTimeout(() => {
        this.#retry = null;
        void this.start();
      }, this.#retryMs);
      this.#retry.unref();
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === CATALOGUE_CHANNEL && this.#client === client) this.#move();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CATALOGUE_CHANNEL}`);
    } catch (error) {
      lost(error as Error);
      return;
    }
    if (this.#client !== client) return;
    // Changes committed while no one listened were not heard: whatever was kept goes.
    this.#live = true;
    this.#move();
    // A connection cut without a word (a network gone silent) would never say so: a query that gets no answer
    // in time counts as the connection lost, so no change goes unheard for longer than about two probes.
    this.#probe = setInterval(() => {
      client.query('SELECT 1').catch((error: Error) => lost(error));
    }, this.#probeMs);
    this.#probe.unref();
    if (this.#lost)
      this.#log.info({ event: 'store.catalogue_heard' }, 'store: catalogue notifications are back');
    this.#lost = false;
  }

  tag(): string | undefined {
    return this.#live ? `heard-${this.#generation}` : undefined;
  }

  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  changed(): void {
    this.#move();
  }

  /** Whether notifications arrive now (tests, `/health`). */
  get live(): boolean {
    return this.#live;
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    this.#stopProbe();
    const client = this.#client;
    this.#client = null;
    this.#down();
    await client?.end().catch(() => undefined);
  }

  #stopProbe(): void {
    if (this.#probe) clearInterval(this.#probe);
    this.#probe = null;
  }

  #down(): void {
    this.#live = false;
    this.#move();
  }

  #move(): void {
    this.#generation += 1;
    for (const listener of this.#listeners) listener();
  }
}
