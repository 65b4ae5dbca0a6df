/**
 * Network helpers: small `sleep` containers on the node's private network whose network namespace an algorithm
 * container shares (`network: container:<helper>`), as vantage6 3.x runs its algorithms beside a helper.
 *
 * Giving a container its own network namespace on a user-defined network (veth pair, embedded DNS rules, and their
 * teardown at exit) is most of what starting it costs: about 200 ms of a 300 ms start on the project's machines. The
 * node therefore keeps three helpers started ahead of time (a master and its own sub-runs arrive a few hundred
 * milliseconds apart, sooner than one replacement starts). A run takes one (one network namespace per run, as
 * before: runs never share one) and a replacement is started in the background. When none is ready (a burst of
 * runs, or the helper image is absent) the algorithm is attached to the private network directly, which costs the
 * same as a helper, so nobody waits for one; a VPN run, which needs a helper, takes the one on its way
 * (`acquire`).
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';

import type { ContainerRuntime } from '../runtime/index.js';
import type { NodeNames } from './naming.js';

/** Image of the helpers: anything whose default command keeps running (scripts/build-images.sh builds it). */
export const DEFAULT_HELPER_IMAGE = 'federa/helper:local';
/** How long after a spare was taken its replacement starts, while other spares are left. */
const REPLACE_AFTER_MS = 1_000;
/** Label of the algorithm container naming the helper whose network it uses. */
export const HELPER_LABEL = 'federa.helper';
const HELPER_TYPE = 'algorithm-helper';

export interface NetworkHelpersOptions {
  readonly runtime: ContainerRuntime;
  readonly names: NodeNames;
  readonly network: string;
  /** `/etc/hosts` entries (host.docker.internal → gateway): they belong to the namespace's owner, the helper. */
  readonly extraHosts: readonly string[];
  readonly log: Logger;
  /**
   * Image of the helpers.
   * @default DEFAULT_HELPER_IMAGE ('federa/helper:local')
   */
  readonly image?: string;
  /** Capabilities of the helpers: `NET_ADMIN` on a VPN node, so the node can route the VPN subnet (docs/vpn.md). */
  readonly capAdd?: readonly string[];
  /**
   * Helpers kept started ahead of time.
   * @default 3
   */
  readonly spares?: number;
}

export class NetworkHelpers {
  readonly #o: NetworkHelpersOptions;
  readonly #image: string;
  readonly #want: number;
  readonly #spares: string[] = [];
  readonly #starting = new Set<Promise<void>>();
  #later: NodeJS.Timeout | undefined;
  #disabled = false;
  #closed = false;

  constructor(options: NetworkHelpersOptions) {
    this.#o = options;
    this.#image = options.image ?? DEFAULT_HELPER_IMAGE;
    this.#want = options.spares ?? 3;
  }

  /** Labels every helper of this node carries (`node` too, so that tools removing a node's containers find them). */
  get labels(): Record<string, string> {
    return { 'vantage6-type': HELPER_TYPE, node: this.#o.names.node, 'federa.prefix': this.#o.names.prefix };
  }

  /**
   * Removes helpers of this node that no algorithm container uses (spares of an earlier process, helpers of runs
   * that were reported), then starts a spare. `inUse`: helper names or ids named by existing algorithm containers.
   */
  async start(inUse: ReadonlySet<string>): Promise<void> {
    const { runtime, log } = this.#o;
    if (!(await runtime.imageExists(this.#image))) {
      this.#disabled = true;
      log.info(
        { event: 'helper.unavailable', image: this.#image },
        'no helper image: algorithms join the private network themselves (each start takes longer)',
      );
      return;
    }
    for (const c of await runtime.listContainers(this.labels)) {
      if (inUse.has(c.name) || inUse.has(c.id)) continue;
      await runtime.removeContainerIfExists(c.id).catch(() => undefined);
    }
    this.prepare();
  }

  /** A ready spare, now belonging to the caller (who removes it with `release`); a replacement is started. */
  take(): string | undefined {
    const spare = this.#spares.shift();
    if (spare === undefined) return undefined;
    if (this.#spares.length === 0) this.prepare();
    else this.#prepareLater();
    return spare;
  }

  /**
   * While spares are left, replacements start a moment later, once the runs that took spares have started their
   * containers: a replacement starting beside an algorithm's start takes the cores that start needs (a master and
   * its sub-runs, measured in bench/task-roundtrip). With none left, they start at once.
   */
  #prepareLater(): void {
    if (this.#later) return;
    this.#later = setTimeout(() => {
      this.#later = undefined;
      this.prepare();
    }, REPLACE_AFTER_MS);
    this.#later.unref();
  }

  /**
   * A ready spare; else the one being started, once it is up; else a helper started now (undefined when helpers
   * are unavailable).
   */
  async acquire(): Promise<string | undefined> {
    const spare = this.take();
    if (spare !== undefined || this.#disabled) return spare;
    if (this.#starting.size > 0) {
      await Promise.race(this.#starting);
      const started = this.take();
      if (started !== undefined) return started;
    }
    return this.#startOne();
  }

  /** Starts spares in the background until the wanted number is ready or on its way. */
  prepare(): void {
    while (!this.#disabled && !this.#closed && this.#spares.length + this.#starting.size < this.#want) {
      const starting: Promise<void> = this.#startOne()
        .then((name) => {
          if (this.#closed) void this.release(name);
          else this.#spares.push(name);
        })
        .catch((error: unknown) => {
          this.#o.log.warn(
            { event: 'helper.start_failed', err: String(error) },
            'could not start a network helper; the next algorithm joins the private network itself',
          );
        })
        .finally(() => {
          this.#starting.delete(starting);
        });
      this.#starting.add(starting);
    }
  }

  /** Resolves once every spare is ready, replacements due later started now (benchmarks wait for a quiet node). */
  async settled(): Promise<void> {
    if (this.#later) {
      clearTimeout(this.#later);
      this.#later = undefined;
      this.prepare();
    }
    while (this.#starting.size > 0) await Promise.all(this.#starting);
  }

  async release(name: string): Promise<void> {
    await this.#o.runtime.removeContainerIfExists(name).catch(() => undefined);
  }

  /** Removes the unused spare (helpers of running algorithms stay: the algorithm needs its network). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#later) clearTimeout(this.#later);
    await this.settled();
    const spares = this.#spares.splice(0);
    await Promise.all(spares.map((name) => this.release(name)));
  }

  async #startOne(): Promise<string> {
    const { runtime, names, network, extraHosts } = this.#o;
    const name = `${names.prefix}-${names.node}-helper-${randomBytes(4).toString('hex')}`;
    await runtime.runContainer({
      name,
      image: this.#image,
      env: {},
      mounts: [],
      network,
      labels: this.labels,
      extraHosts,
      ...(this.#o.capAdd ? { capAdd: this.#o.capAdd } : {}),
    });
    return name;
  }
}
