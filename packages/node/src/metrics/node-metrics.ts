import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { processRegistry, RUN_STATUSES } from '@federa/common';
import type { ContainerStats } from '../runtime/container-runtime.js';

/** Seconds: a container starts in well under a second; a pull or a run can take hours. */
const START_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const LONG_BUCKETS = [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600];
const PROXY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** What the node's metrics read when scraped. */
export interface NodeMetricSources {
  /** Runs this node has under way. */
  activeRuns: () => number;
  /** Whether the socket to the server is connected. */
  connected: () => boolean;
  /** The node's algorithm containers that run now, and how to read their figures. */
  containers?: () => Promise<{ ids: string[]; stats: (id: string) => Promise<ContainerStats | undefined> }>;
}

/**
 * The node's Prometheus metrics (docs/observability.md). Counters and durations are recorded as things happen;
 * the running containers' CPU and memory are read from the engine when scraped.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  readonly runStatuses: Counter<'status'>;
  readonly containerStart: Histogram<'outcome'>;
  readonly containerRun: Histogram<'exit'>;
  readonly imagePulls: Counter<'action'>;
  readonly imagePullSeconds: Histogram;
  readonly proxyRequests: Histogram<'method' | 'route' | 'status_code'>;
  readonly uploadedBytes: Counter<'via'>;
  readonly downloadedBytes: Counter<'via'>;
  readonly reconnects: Counter;
  readonly #containers: Gauge;
  readonly #memory: Gauge;
  readonly #cpu: Counter;
  #reading: Promise<void> | null = null;
  #connects = 0;
  #sources: NodeMetricSources | null = null;
  /** CPU seconds of each running container at the last scrape, to add what each used since to the counter. */
  readonly #cpuSeen = new Map<string, number>();

  constructor() {
    const registers = [this.registry];
    this.runStatuses = new Counter({
      name: 'federa_node_run_status_changes_total',
      help: 'Runs that reached each status on this node (reported to the server).',
      labelNames: ['status'],
      registers,
    });
    this.containerStart = new Histogram({
      name: 'federa_node_container_start_seconds',
      help: 'Time to create and start an algorithm container, by outcome (started, failed).',
      labelNames: ['outcome'],
      buckets: START_BUCKETS,
      registers,
    });
    this.containerRun = new Histogram({
      name: 'federa_node_container_run_seconds',
      help: 'Time from the start of an algorithm container to its exit, by exit (zero, nonzero).',
      labelNames: ['exit'],
      buckets: LONG_BUCKETS,
      registers,
    });
    this.imagePulls = new Counter({
      name: 'federa_node_image_pulls_total',
      help: 'Image checks against the registry, by action (pulled, up-to-date, local-fallback, missing, failed).',
      labelNames: ['action'],
      registers,
    });
    this.imagePullSeconds = new Histogram({
      name: 'federa_node_image_pull_seconds',
      help: 'Time to check an image against its registry and pull it when newer.',
      buckets: LONG_BUCKETS,
      registers,
    });
    this.proxyRequests = new Histogram({
      name: 'federa_node_proxy_request_duration_seconds',
      help: "Algorithms' calls through the node's proxy, by method, route pattern and status code.",
      labelNames: ['method', 'route', 'status_code'],
      buckets: PROXY_BUCKETS,
      registers,
    });
    this.uploadedBytes = new Counter({
      name: 'federa_node_uploaded_bytes_total',
      help: "Bytes of request bodies sent towards the server, by way (node: the node's own calls; proxy: algorithms').",
      labelNames: ['via'],
      registers,
    });
    this.downloadedBytes = new Counter({
      name: 'federa_node_downloaded_bytes_total',
      help: "Bytes of answers received from the server, by way (node: the node's own calls; proxy: algorithms').",
      labelNames: ['via'],
      registers,
    });
    this.reconnects = new Counter({
      name: 'federa_node_server_reconnects_total',
      help: 'Times the socket to the server connected again after its first connection.',
      registers,
    });
    // The label values known in advance start at zero, so that every series exists from the first scrape.
    for (const status of RUN_STATUSES) this.runStatuses.inc({ status }, 0);
    for (const outcome of ['started', 'failed']) this.containerStart.zero({ outcome });
    for (const exit of ['zero', 'nonzero']) this.containerRun.zero({ exit });
    for (const action of ['pulled', 'up-to-date', 'local-fallback', 'missing', 'failed'])
      this.imagePulls.inc({ action }, 0);
    for (const via of ['node', 'proxy']) {
      this.uploadedBytes.inc({ via }, 0);
      this.downloadedBytes.inc({ via }, 0);
    }
    const sources = (): NodeMetricSources | null => this.#sources;
    new Gauge({
      name: 'federa_node_server_connected',
      help: 'Whether the socket to the server is connected (1) or not (0).',
      registers,
      collect() {
        this.set(sources()?.connected() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'federa_node_runs_active',
      help: 'Runs this node has under way (preparing, running or reporting).',
      registers,
      collect() {
        this.set(sources()?.activeRuns() ?? 0);
      },
    });
    this.#containers = new Gauge({
      name: 'federa_node_algorithm_containers',
      help: 'Algorithm containers running now.',
      registers,
    });
    this.#memory = new Gauge({
      name: 'federa_node_algorithm_memory_bytes',
      help: 'Memory in use by the running algorithm containers together (as docker stats shows it).',
      registers,
    });
    this.#cpu = new Counter({
      name: 'federa_node_algorithm_cpu_seconds_total',
      help: 'CPU time used by algorithm containers, read at each scrape (what a container used after the last scrape before it stopped is not counted).',
      registers,
    });
  }

  /** Reads the running algorithm containers' figures from the engine: once per scrape, each container once. */
  #readContainers(): Promise<void> {
    // Scrapes at the same time share one reading: each would otherwise add the same CPU time to the counter.
    this.#reading ??= this.#readOnce().finally(() => (this.#reading = null));
    return this.#reading;
  }

  async #readOnce(): Promise<void> {
    const read = this.#sources?.containers;
    if (!read) return;
    const { ids, stats } = await read();
    const figures = await Promise.all(
      ids.map(async (id) => [id, await stats(id).catch(() => undefined)] as const),
    );
    let bytes = 0;
    let running = 0;
    for (const [id, s] of figures) {
      if (!s) continue;
      running += 1;
      bytes += s.memoryBytes;
      this.#cpu.inc(Math.max(0, s.cpuSeconds - (this.#cpuSeen.get(id) ?? 0)));
      this.#cpuSeen.set(id, s.cpuSeconds);
    }
    for (const id of [...this.#cpuSeen.keys()]) if (!ids.includes(id)) this.#cpuSeen.delete(id);
    this.#containers.set(running);
    this.#memory.set(bytes);
  }

  /** Counts the bytes of one of the node's own calls to the server. */
  readonly countServerBytes = (sent: number, received: number): void => {
    this.uploadedBytes.inc({ via: 'node' }, sent);
    this.downloadedBytes.inc({ via: 'node' }, received);
  };

  /** Counts a run's status change as the node reports it, and gives the change back. */
  countRunStatus<T extends { status: string }>(change: T): T {
    this.runStatuses.inc({ status: change.status });
    return change;
  }

  /** Counts a connection of the socket to the server: every one after the first is a reconnection. */
  countConnect(): void {
    if (this.#connects++ > 0) this.reconnects.inc();
  }

  /** Connects the scrape-time readings (once the node's parts exist). */
  watch(sources: NodeMetricSources): void {
    this.#sources = sources;
  }

  /** The Prometheus text of the node's metrics and of its process. */
  async text(): Promise<{ contentType: string; body: string }> {
    await this.#readContainers();
    const [own, processText] = await Promise.all([this.registry.metrics(), processRegistry().metrics()]);
    return { contentType: this.registry.contentType, body: `${own}\n${processText}` };
  }
}
