/**
 * The cells of declared fields read straight from the output's bytes, in one pass, with no object built
 * (docs/output-control.md#cost): `JSON.parse` of a megabyte alone takes longer than the checks may add to a run.
 * It answers only when the whole body is valid JSON and every declared field was read as cells.ts reads it; else
 * (invalid JSON, a key missing or repeated, a cell that is not a count, nesting too deep) it gives up, and the
 * caller parses the body, which words the refusal. A key repeated inside a table counts each time it appears, where
 * `JSON.parse` keeps the last: stricter, and right, since a reader that keeps the first would see the other value.
 */
import type { Cells } from './cells.js';
import type { Places, Wanted } from './scan-types.js';
export type { Places, Wanted } from './scan-types.js';

/** Deeper nesting is refused by cells.ts; the scan gives up there too. */
const MAX_DEPTH = 8;
/** How deep the scan skips through fields nobody declared before it leaves the body to `JSON.parse`. */
const MAX_SKIP_DEPTH = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** What {@link intRun} read: how many cells, and whether it stopped after a cell (else at the start of one). */
const run = { count: 0, after: false };

/**
 * Reads from `i`, the start of a list's cell, the cells that are whole numbers of 1 to 15 digits, 0 or at least
 * `limit`, the fast path of a table of counts. Stops at the first other cell (at its start), or after a cell that
 * no `,` follows (at the byte after it: the list's end, or an error for the caller to find). Plain locals only: this
 * loop is most of the time of a check.
 */
function intRun(b: Uint8Array, i: number, n: number, limit: number): number {
  let count = 0;
  let after = false;
  while (i < n) {
    const start = i;
    let d = b[i]! - ZERO;
    if (d < 0 || d > 9) break;
    let v = d;
    i++;
    // A leading 0 is a whole cell: a digit after it is not JSON, which the slow path refuses.
    if (v !== 0)
      while (i < n) {
        d = b[i]! - ZERO;
        if (d < 0 || d > 9) break;
        v = v * 10 + d;
        i++;
      }
    let c = b[i];
    if (
      i - start > 15 ||
      (c! >= ZERO && c! <= NINE) ||
      c === 0x2e ||
      c === 0x65 ||
      c === 0x45 ||
      (v > 0 && v < limit)
    ) {
      i = start;
      break;
    }
    count++;
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++i];
    if (c !== 0x2c) {
      after = true;
      break;
    }
    i = skipWs(b, i + 1, n);
  }
  run.count = count;
  run.after = after;
  return i;
}

/** The index of the first byte at or after `i` that is not JSON whitespace. */
function skipWs(b: Uint8Array, i: number, n: number): number {
  while (i < n) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
  return i;
}

class GiveUp extends Error {}
const giveUp = new GiveUp();
const RESERVED = Buffer.from('federa_suppressed');

/**
 * The values read at each wanted key (cells or a number), or undefined when the caller must parse the body. With
 * `places`, where its small cells and the top level's end are.
 */
export function scanDeclared(
  body: Uint8Array,
  wanted: readonly Wanted[],
  places?: Places,
): Map<string, Cells | number> | undefined {
  try {
    return new Scanner(body, places).top(wanted);
  } catch (error) {
    if (error instanceof GiveUp || error instanceof RangeError) return undefined;
    throw error;
  }
}

class Scanner {
  i = 0;
  readonly b: Uint8Array;
  readonly n: number;

  constructor(
    body: Uint8Array,
    readonly places?: Places,
  ) {
    this.b = body;
    this.n = body.length;
  }

  ws(): number {
    const i = (this.i = skipWs(this.b, this.i, this.n));
    return i < this.n ? this.b[i]! : -1;
  }

  expect(c: number): void {
    if (this.ws() !== c) throw giveUp;
    this.i++;
  }

  top(wanted: readonly Wanted[]): Map<string, Cells | number> {
    const keys = wanted.map((w) => Buffer.from(w.key, 'utf8'));
    const found = new Map<string, Cells | number>();
    this.expect(0x7b);
    if (this.ws() === 0x7d) this.i++;
    else
      for (;;) {
        const [start, end] = this.string();
        this.expect(0x3a);
        const at = keys.findIndex((k) => this.sameKey(start, end, k));
        const w = at < 0 ? undefined : wanted[at]!;
        if (w === undefined) {
          if (this.places && this.sameKey(start, end, RESERVED)) this.places.taken = true;
          this.skip(0);
        } else {
          if (found.has(w.key)) throw giveUp;
          found.set(w.key, w.as === 'cells' ? this.cells(w.counts, w.below) : this.numberValue());
        }
        const c = this.ws();
        this.i++;
        if (c === 0x7d && this.places) this.places.close = this.i - 1;
        if (c === 0x7d) break;
        if (c !== 0x2c) throw giveUp;
      }
    if (this.ws() !== -1 || found.size !== wanted.length) throw giveUp;
    return found;
  }

  /** Whether the raw key at [start, end) is `key` (declared keys need no escapes; an escaped key gives up). */
  sameKey(start: number, end: number, key: Buffer): boolean {
    if (end - start !== key.length) {
      if (this.b.subarray(start, end).includes(BACKSLASH)) throw giveUp;
      return false;
    }
    for (let j = 0; j < key.length; j++) if (this.b[start + j] !== key[j]) return false;
    return true;
  }

  /** A string at the cursor; returns the range of its raw contents. */
  string(): [number, number] {
    if (this.ws() !== QUOTE) throw giveUp;
    const b = this.b;
    let i = this.i + 1;
    const start = i;
    for (;;) {
      if (i >= this.n) throw giveUp;
      const c = b[i]!;
      if (c === QUOTE) break;
      if (c < 0x20) throw giveUp;
      if (c === BACKSLASH) {
        const e = b[i + 1];
        if (e === 0x75) {
          for (let h = i + 2; h < i + 6; h++) {
            const x = b[h] ?? 0;
            if (!((x >= ZERO && x <= NINE) || (x >= 0x41 && x <= 0x46) || (x >= 0x61 && x <= 0x66)))
              throw giveUp;
          }
          i += 6;
          continue;
        }
        // " \ / b f n r t
        if (
          e !== QUOTE &&
          e !== BACKSLASH &&
          e !== 0x2f &&
          e !== 0x62 &&
          e !== 0x66 &&
          e !== 0x6e &&
          e !== 0x72 &&
          e !== 0x74
        )
          throw giveUp;
        i += 2;
        continue;
      }
      i++;
    }
    this.i = i + 1;
    return [start, i];
  }

  /** A number at the cursor (JSON's grammar), as `JSON.parse` reads it. */
  numberValue(): number {
    this.ws();
    const b = this.b;
    const start = this.i;
    let i = start;
    if (b[i] === MINUS) i++;
    const first = b[i];
    if (first === undefined || first < ZERO || first > NINE) throw giveUp;
    let value = 0;
    if (first === ZERO) i++;
    else
      while (i < this.n && b[i]! >= ZERO && b[i]! <= NINE) {
        value = value * 10 + (b[i]! - ZERO);
        i++;
      }
    let simple = i - start <= 15;
    if (b[i] === 0x2e) {
      simple = false;
      i++;
      const d = i;
      while (i < this.n && b[i]! >= ZERO && b[i]! <= NINE) i++;
      if (i === d) throw giveUp;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      simple = false;
      i++;
      if (b[i] === 0x2b || b[i] === MINUS) i++;
      const d = i;
      while (i < this.n && b[i]! >= ZERO && b[i]! <= NINE) i++;
      if (i === d) throw giveUp;
    }
    this.i = i;
    if (simple) return b[start] === MINUS ? -value : value;
    return Number(Buffer.from(b.buffer, b.byteOffset + start, i - start).toString('latin1'));
  }

  /** Skips any JSON value, checking it. */
  skip(depth: number): void {
    const c = this.ws();
    if (c === QUOTE) {
      this.string();
      return;
    }
    if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_SKIP_DEPTH) throw giveUp;
      const close = c === 0x7b ? 0x7d : 0x5d;
      this.i++;
      if (this.ws() === close) {
        this.i++;
        return;
      }
      for (;;) {
        if (close === 0x7d) {
          this.string();
          this.expect(0x3a);
        }
        this.skip(depth + 1);
        const next = this.ws();
        this.i++;
        if (next === close) return;
        if (next !== 0x2c) throw giveUp;
      }
    }
    if (c === MINUS || (c >= ZERO && c <= NINE)) {
      this.numberValue();
      return;
    }
    for (const word of ['true', 'false', 'null'])
      if (c === word.charCodeAt(0)) {
        for (let j = 0; j < word.length; j++) if (this.b[this.i + j] !== word.charCodeAt(j)) throw giveUp;
        this.i += word.length;
        return;
      }
    throw giveUp;
  }

  /**
   * A table of cells at the cursor, as cells.ts reads it; gives up at anything cells.ts would refuse. The loop over
   * a container's entries reads whole-number cells in place (the common case): a megabyte is about 180,000 of them.
   */
  cells(counts: boolean, below: number | undefined): Cells {
    const b = this.b;
    const n = this.n;
    let count = 0;
    const widths: number[] = [];
    const small: string[][] = [];
    const limit = below ?? 0;
    // The places of the containers open above the cursor: an index, or the raw range of a key.
    const path: (number | [number, number])[] = [];
    const place = (last: number | [number, number]): string[] =>
      [...path, last].map((p) =>
        typeof p === 'number'
          ? String(p)
          : (JSON.parse(`"${Buffer.from(b.subarray(p[0], p[1])).toString('utf8')}"`) as string),
      );
    const walk = (depth: number): void => {
      let i = skipWs(b, this.i, n);
      const open = b[i];
      if (open !== 0x7b && open !== 0x5b) {
        // A table that is one number.
        this.i = i;
        const v = this.numberValue();
        if (!Number.isFinite(v) || (counts && (v < 0 || !Number.isInteger(v)))) throw giveUp;
        count++;
        if (v > 0 && v < limit) {
          small.push([]);
          this.places?.spans.push([i, this.i]);
        }
        return;
      }
      if (depth >= MAX_DEPTH) throw giveUp;
      const isObject = open === 0x7b;
      const close = isObject ? 0x7d : 0x5d;
      i = skipWs(b, i + 1, n);
      let entries = 0;
      if (b[i] === close) i++;
      else
        for (;;) {
          if (!isObject) {
            i = intRun(b, i, n, limit);
            entries += run.count;
            count += run.count;
            if (run.after) {
              if (b[i++] !== close) throw giveUp;
              break;
            }
          }
          let at: number | [number, number] = entries;
          if (isObject) {
            this.i = i;
            at = this.string();
            i = skipWs(b, this.i, n);
            if (b[i] !== 0x3a) throw giveUp;
            i = skipWs(b, i + 1, n);
          }
          const c = b[i]!;
          if (c === MINUS || (c >= ZERO && c <= NINE)) {
            // A whole number of up to 15 digits is read here; anything else by numberValue.
            const start = i;
            let v = 0;
            if (c === MINUS) i++;
            if (b[i] === ZERO) i++;
            else
              while (i < n) {
                const d = b[i]! - ZERO;
                if (d < 0 || d > 9) break;
                v = v * 10 + d;
                i++;
              }
            const e = b[i];
            if (
              i - start > 15 ||
              e === 0x2e ||
              e === 0x65 ||
              e === 0x45 ||
              i === start + (c === MINUS ? 1 : 0)
            ) {
              this.i = start;
              v = this.numberValue();
              i = this.i;
            } else if (c === MINUS) v = -v;
            if (!Number.isFinite(v) || (counts && (v < 0 || !Number.isInteger(v)))) throw giveUp;
            count++;
            if (v > 0 && v < limit) {
              small.push(place(at));
              this.places?.spans.push([start, i]);
            }
          } else if (c === 0x7b || c === 0x5b) {
            path.push(at);
            this.i = i;
            walk(depth + 1);
            i = this.i;
            path.pop();
          } else throw giveUp;
          entries++;
          i = skipWs(b, i, n);
          const next = b[i++];
          if (next === close) break;
          if (next !== 0x2c) throw giveUp;
          i = skipWs(b, i, n);
        }
      this.i = i;
      if (entries > (widths[depth] ?? 0)) widths[depth] = entries;
    };
    walk(0);
    return { count, widths, below, small };
  }
}
