/**
 * How many VPN certificates the server makes, and when (docs/vpn.md, "Certificates"). Each one costs a new RSA key:
 * a node that asks again and again must not take the server's thread pool from everyone else.
 *
 * - one request per node at a time: another one while the first is being made is refused;
 * - at most {@link PER_NODE_PER_WINDOW} per node per {@link WINDOW_MS}: a node asks once at its start and once
 *   per renewal, so more is a fault or an attack;
 * - at most {@link AT_ONCE} keys made at the same time across all nodes; the others wait their turn (a fleet of
 *   nodes starting together is served, a little later).
 */
export const PER_NODE_PER_WINDOW = 6;
export const WINDOW_MS = 60_000;
export const AT_ONCE = 2;

/** A refused request: why, and after how many seconds the node may ask again. */
export class IssueRefused extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'IssueRefused';
  }
}

export class IssueLimit {
  readonly #busy = new Set<number>();
  readonly #recent = new Map<number, number[]>();
  readonly #waiting: (() => void)[] = [];
  #running = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Runs `make` for `nodeId` within the limits, or throws {@link IssueRefused} without running it. */
  async run<T>(nodeId: number, make: () => Promise<T>): Promise<T> {
    if (this.#busy.has(nodeId))
      throw new IssueRefused(
        'A VPN certificate for this node is being made already; wait for that answer before asking again.',
        2,
      );
    const now = this.now();
    const recent = (this.#recent.get(nodeId) ?? []).filter((at) => now - at < WINDOW_MS);
    if (recent.length >= PER_NODE_PER_WINDOW) {
      const wait = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - now) / 1000));
      throw new IssueRefused(
        `This node asked for ${PER_NODE_PER_WINDOW} VPN certificates in the last ${WINDOW_MS / 1000} seconds, the most it may; retry in ${wait} seconds.`,
        wait,
      );
    }
    recent.push(now);
    this.#recent.set(nodeId, recent);
    this.#busy.add(nodeId);
    try {
      await this.#turn();
      try {
        return await make();
      } finally {
        this.#release();
      }
    } finally {
      this.#busy.delete(nodeId);
      this.#forgetOld(now);
    }
  }

  /** Resolves when this request holds one of the {@link AT_ONCE} places. */
  async #turn(): Promise<void> {
    if (this.#running < AT_ONCE) {
      this.#running++;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the place to the next waiting request, or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }

  /** Drops the nodes whose requests are all out of the window, so the map does not grow with every node. */
  #forgetOld(now: number): void {
    if (this.#recent.size < 1000) return;
    for (const [id, times] of this.#recent)
      if (times.every((at) => now - at >= WINDOW_MS)) this.#recent.delete(id);
  }
}
