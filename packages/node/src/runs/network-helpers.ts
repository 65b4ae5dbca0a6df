/**
 * Network helpers: small `sleep` containers on the node's private network whose network namespace an algorithm
 * container shares (`network: container:<helper>`), as vantage6 3.x runs its algorithms beside a helper.
 *
 * Giving a container its own network namespace on a user-defined network (veth pair, embedded DNS rules, and their
 * teardown at exit) is most of what starting it costs: about 200 ms of a 300 ms start on the project's machines. The
 * node therefore keeps one helper started ahead of time. A run takes it (one network namespace per run, as before:
 * runs never share one) and a replacement is started in the background. When none is ready (a burst of runs, or the
 * helper image is absent) the algorithm is attached to the private network directly, which costs the same as a
 * helper, so nobody waits for one.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';

import type { ContainerRuntime } from '../runtime/index.js';
import type { NodeNames } from './naming.js';

/** Image of the helpers: anything whose default command keeps running (scripts/build-images.sh builds it). */
export const DEFAULT_HELPER_IMAGE = 'federa/helper:local';
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
}

export class NetworkHelpers {
  readonly #o: NetworkHelpersOptions;
  readonly #image: string;
  #spare: string | undefined;
  #preparing: Promise<void> | undefined;
  #disabled = false;
  #closed = false;

  constructor(options: NetworkHelpersOptions) {
    this.#o = options;
    this.#image = options.image ?? DEFAULT_HELPER_IMAGE;
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

  /** The ready spare, now belonging to the caller (who removes it with `release`); a replacement is started. */
  take(): string | undefined {
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare !== undefined) this.prepare();
    return spare;
  }

  /** The ready spare, or a helper started now when none is ready (undefined when helpers are unavailable). */
  async acquire(): Promise<string | undefined> {
    const spare = this.take();
    if (spare !== undefined || this.#disabled) return spare;
    return this.#startOne();
  }

  /** Starts a spare in the background unless one is ready or on its way. */
  prepare(): void {
    if (this.#disabled || this.#closed || this.#spare !== undefined || this.#preparing) return;
    this.#preparing = this.#startOne()
      .then((name) => {
        if (this.#closed) void this.release(name);
        else this.#spare = name;
      })
      .catch((error: unknown) => {
        this.#o.log.warn(
          { event: 'helper.start_failed', err: String(error) },
          'could not start a network helper; the next algorithm joins the private network itself',
        );
      })
      .finally(() => {
        this.#preparing = undefined;
      });
  }

  /** Resolves when no spare is being started (benchmarks wait for a quiet node). */
  async settled(): Promise<void> {
    while (this.#preparing) await this.#preparing;
  }

  async release(name: string): Promise<void> {
    await this.#o.runtime.removeContainerIfExists(name).catch(() => undefined);
  }

  /** Removes the unused spare (helpers of running algorithms stay: the algorithm needs its network). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.settled();
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare !== undefined) await this.release(spare);
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
