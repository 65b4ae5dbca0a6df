import type { ClockReading, ReadClock } from '../db/change-clock.js';
import type { CatalogueSignal } from './catalogue-listener.js';
import type { StoreCaller } from './context.js';
import type { StorePolicies } from './policies.js';

/** One listing as it went out: its JSON body and its `total-count`. */
export interface KeptPage {
  body: string;
  total: number;
}

/**
 * What the store's reads compute, kept in memory while what they read is unchanged (docs/store.md#speed,
 * bench/store-list):
 * - the policies and the catalogue's public listings belong to the catalogue's version (migration 0027: a number
 *   that triggers move with every change of algorithms, functions and policies, whoever writes them, this
 *   instance or another), read by primary key once per request;
 * - the callers tokens name belong to the reading of the database's clock (db/change-clock.ts), which moves with
 *   any write, since users and roles change with the rest of the server; a kept caller is given again only until
 *   its token expires.
 * A request is given only entries of the version or reading it took itself, before its own queries: nothing older
 * than the data is ever answered. Without a version or a clock nothing is kept.
 *
 * With a {@link CatalogueSignal} (PostgreSQL's notifications, catalogue-listener.ts) the version is its tag, known
 * without a round trip: a kept page is then answered with no query at all. A change committed anywhere moves the
 * tag when its notification arrives, and a store write of this process moves it before its answer goes out; while
 * the signal is down the version number is read from the database as above.
 */
export class CatalogueCache {
  readonly #clock: ReadClock | undefined;
  readonly #version: (() => Promise<string>) | undefined;
  readonly #maxEntries: number;
  /** Kept pages hold at most this many bytes: a caller choosing many distinct URLs cannot fill the memory. */
  readonly #maxBytes: number;
  #bytes = 0;
  #catalogue: string | undefined;
  #reading: ClockReading | undefined;
  #policies: Promise<StorePolicies> | undefined;
  readonly #pages = new Map<string, KeptPage>();
  readonly #callers = new Map<string, { caller: StoreCaller; until: number }>();
  readonly #versions = new WeakMap<object, string>();
  readonly #readings = new WeakMap<object, ClockReading>();
  /** Tokens fully checked before, until they expire: enough for reads whose answer is the same for everyone. */
  readonly #checked = new Map<string, number>();
  readonly #signal: CatalogueSignal | undefined;

  constructor(
    clock: ReadClock | undefined,
    version: (() => Promise<string>) | undefined,
    limits: { maxEntries?: number; maxBytes?: number; signal?: CatalogueSignal } = {},
  ) {
    this.#clock = clock;
    this.#version = version;
    this.#maxEntries = limits.maxEntries ?? 2000;
    this.#maxBytes = limits.maxBytes ?? 32 * 1024 * 1024;
    this.#signal = limits.signal;
    this.#signal?.onChange(() => this.#drop(undefined));
  }

  /** A store write of this process: what is kept goes now, before the write's answer is sent. */
  changed(): void {
    if (this.#signal) this.#signal.changed();
    else this.#drop(undefined);
  }

  #drop(version: string | undefined): void {
    this.#catalogue = version;
    this.#policies = undefined;
    this.#pages.clear();
    this.#bytes = 0;
  }

  /** The catalogue's version, read once per request; what belongs to another one is dropped. */
  async version(request: object): Promise<string | undefined> {
    if (!this.#version) return undefined;
    const taken = this.#versions.get(request);
    if (taken !== undefined) return taken;
    const heard = this.#signal?.tag();
    const now = heard ?? (await this.#version());
    this.#versions.set(request, now);
    if (now !== this.#catalogue) this.#drop(now);
    return now;
  }

  /** The clock's reading, taken once per request; callers of another reading are dropped. */
  async look(request: object): Promise<ClockReading | undefined> {
    if (!this.#clock) return undefined;
    const taken = this.#readings.get(request);
    if (taken !== undefined) return taken;
    const now = await this.#clock.now();
    this.#readings.set(request, now);
    if (now !== this.#reading) {
      this.#reading = now;
      this.#callers.clear();
    }
    return now;
  }

  policies(version: string | undefined, load: () => Promise<StorePolicies>): Promise<StorePolicies> {
    if (version === undefined || version !== this.#catalogue) return load();
    const kept = (this.#policies ??= load());
    kept.catch(() => {
      if (this.#policies === kept) this.#policies = undefined;
    });
    return kept;
  }

  page(version: string | undefined, key: string): KeptPage | undefined {
    return version !== undefined && version === this.#catalogue ? this.#pages.get(key) : undefined;
  }

  keepPage(version: string | undefined, key: string, page: KeptPage): void {
    if (version === undefined || version !== this.#catalogue || page.body.length > this.#maxBytes) return;
    if (this.#pages.size >= this.#maxEntries || this.#bytes + page.body.length > this.#maxBytes) {
      this.#pages.clear();
      this.#bytes = 0;
    }
    this.#bytes += page.body.length - (this.#pages.get(key)?.body.length ?? 0);
    this.#pages.set(key, page);
  }

  /** Whether `key` is a token checked in full before and not expired. */
  checkedBefore(key: string): boolean {
    const until = this.#checked.get(key);
    return until !== undefined && until > Date.now();
  }

  caller(reading: ClockReading | undefined, key: string): StoreCaller | undefined {
    if (reading === undefined || reading !== this.#reading) return undefined;
    const kept = this.#callers.get(key);
    return kept && kept.until > Date.now() ? kept.caller : undefined;
  }

  keepCaller(reading: ClockReading | undefined, key: string, caller: StoreCaller, until: number): void {
    if (until > Date.now()) {
      if (this.#checked.size >= this.#maxEntries) this.#checked.clear();
      this.#checked.set(key, until);
    }
    if (reading === undefined || reading !== this.#reading || !(until > Date.now())) return;
    if (this.#callers.size >= this.#maxEntries) this.#callers.clear();
    this.#callers.set(key, { caller, until });
  }
}

/** When a bearer JWT expires (ms since the epoch), read from its payload after the token was checked; 0 if unknown. */
export function tokenExpiry(authorization: string | undefined): number {
  const token = authorization?.replace(/^Bearer\s+/i, '') ?? '';
  const payload = token.split('.')[1];
  if (!payload) return 0;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : 0;
  } catch {
    return 0;
  }
}
