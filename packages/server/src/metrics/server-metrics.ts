import { Counter, Gauge, Registry } from 'prom-client';
import type { Kysely } from 'kysely';
import { OPEN_RUN_STATUSES, processRegistry, RUN_STATUSES } from '@federa/common';
import type { Database } from '../db/schema.js';
import { RequestHistogram } from './request-histogram.js';
import { readDatabaseCounts, type DatabaseCounts } from '../repositories/metrics/database-counts.js';

/** Seconds; from a fast cached read to a long upload. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** What the metrics read at scrape time; each part may be absent (a test app has no sockets, SQLite no pool). */
export interface ServerMetricSources {
  db: () => Kysely<Database>;
  pool?: () => { total: number; idle: number; waiting: number } | null;
  audit?: () => { written: number; failed: number } | null;
}

/** The open sockets of this instance, by kind (`user`, `node`, `unauthenticated`). */
export type SocketCounter = () => Map<string, number>;

/**
 * The server's Prometheus metrics (docs/observability.md). Request counts and durations are recorded as requests
 * end; everything else is read when scraped: the database's counts in one grouped query, never per request.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #http: RequestHistogram;
  readonly uploads: Counter<'outcome'>;
  readonly uploadedBytes: Counter;
  #sockets: SocketCounter | null = null;
  /** A scrape that comes while the previous one's query still runs shares its answer. */
  #counting: Promise<DatabaseCounts> | null = null;

  constructor(sources: ServerMetricSources) {
    const registers = [this.registry];
    this.#http = new RequestHistogram({
      name: 'federa_http_request_duration_seconds',
      help: 'Time from the request to its answer, by method, route pattern and status code.',
      buckets: HTTP_BUCKETS,
      registry: this.registry,
    });
    this.uploads = new Counter({
      name: 'federa_result_store_uploads_total',
      help: 'Outputs written to the result store (outcome: stored, failed).',
      labelNames: ['outcome'],
      registers,
    });
    this.uploadedBytes = new Counter({
      name: 'federa_result_store_uploaded_bytes_total',
      help: 'Bytes of the outputs written whole to the result store.',
      registers,
    });
    // Known label values start at zero, so that every series exists from the first scrape.
    for (const outcome of ['stored', 'failed']) this.uploads.inc({ outcome }, 0);
    const sockets = (): Map<string, number> => this.#sockets?.() ?? new Map();
    new Gauge({
      name: 'federa_sockets_connected',
      help: 'Sockets open on this instance, by kind (user, node, unauthenticated).',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        const counts = sockets();
        for (const kind of ['user', 'node']) this.set({ kind }, counts.get(kind) ?? 0);
        for (const [kind, n] of counts) if (kind !== 'user' && kind !== 'node') this.set({ kind }, n);
      },
    });
    const counts = (): Promise<DatabaseCounts> => {
      this.#counting ??= readDatabaseCounts(sources.db()).finally(() => (this.#counting = null));
      return this.#counting;
    };
    const byStatus = (
      name: string,
      help: string,
      pick: (c: DatabaseCounts) => Map<string, number>,
      known: readonly string[],
    ): void => {
      new Gauge({
        name,
        help,
        labelNames: ['status'],
        registers,
        async collect() {
          const map = pick(await counts());
          this.reset();
          for (const status of known) this.set({ status }, 0);
          for (const [status, n] of map) this.set({ status }, n);
        },
      });
    };
    byStatus('federa_runs', 'Runs in the database, by status.', (c) => c.runs, RUN_STATUSES);
    byStatus('federa_tasks', 'Tasks in the database, by status (the status the API shows).', (c) => c.tasks, [
      ...OPEN_RUN_STATUSES,
      'completed',
      'failed',
    ]);
    byStatus('federa_nodes', 'Registered nodes, by status (online, offline, unknown).', (c) => c.nodes, [
      'online',
      'offline',
    ]);
    new Gauge({
      name: 'federa_result_store_bytes',
      help: 'Bytes of the outputs held in the result store.',
      registers,
      async collect() {
        this.set((await counts()).storedBytes);
      },
    });
    if (sources.pool) {
      const pool = sources.pool;
      new Gauge({
        name: 'federa_db_pool_connections',
        help: 'PostgreSQL connections of the pool, by state (in_use, idle).',
        labelNames: ['state'],
        registers,
        collect() {
          const stats = pool();
          this.set({ state: 'in_use' }, stats ? stats.total - stats.idle : 0);
          this.set({ state: 'idle' }, stats?.idle ?? 0);
        },
      });
      new Gauge({
        name: 'federa_db_pool_waiting',
        help: 'Queries waiting for a PostgreSQL connection to come free.',
        registers,
        collect() {
          this.set(pool()?.waiting ?? 0);
        },
      });
    }
    if (sources.audit) {
      const audit = sources.audit;
      // A counter read from the audit log's own count: set, not incremented, at each scrape.
      new Counter({
        name: 'federa_audit_entries_total',
        help: 'Audit log entries, by outcome (written, failed).',
        labelNames: ['outcome'],
        registers,
        collect() {
          const c = audit();
          this.reset();
          this.inc({ outcome: 'written' }, c?.written ?? 0);
          this.inc({ outcome: 'failed' }, c?.failed ?? 0);
        },
      });
    }
  }

  /** Counts the open sockets when scraped (set once the socket server is bound). */
  watchSockets(counter: SocketCounter): void {
    this.#sockets = counter;
  }

  /** Records one answered request. `route` is the route's pattern, never the URL. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.#http.observe(method, route, status, seconds);
  }

  /** The Prometheus text of this server's metrics and of its process. */
  async text(): Promise<{ contentType: string; body: string }> {
    const [own, processText] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return { contentType: this.registry.contentType, body: `${own}\n${processText}` };
  }
}
