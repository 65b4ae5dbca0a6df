/**
 * Checks audit chains (docs/audit.md, "Verifying"): every entry's hash matches its content, seq goes up by one
 * and `prev` names the entry before, across rotated files. The first problem is reported with its file and line.
 */
import { readFile } from 'node:fs/promises';
import { AUDIT_FORMAT_VERSION, entryHash, GENESIS_HASH, UNKEYED_FORMAT_VERSION } from './audit-entry.js';
import type { AuditKey } from './audit-key.js';

export type AuditProblemKind =
  | 'unreadable'
  | 'truncated'
  | 'malformed'
  | 'edited'
  | 'missing'
  | 'out-of-order'
  | 'broken-link'
  | 'cut-off'
  | 'no-key'
  | 'wrong-key'
  | 'unkeyed';

export interface AuditProblem {
  readonly file: string;
  /** 1-based line of the file. */
  readonly line: number;
  readonly kind: AuditProblemKind;
  /** One sentence for people. */
  readonly reason: string;
}

export interface ChainReport {
  readonly chain: string;
  readonly files: readonly string[];
  /** Entries that checked out (up to the first problem). */
  readonly entries: number;
  /** The id of the key the keyed entries were checked with. */
  readonly keyId?: string;
  /** Of those, entries without a key (version 1: anyone who could write the file could have rewritten them). */
  readonly unkeyed: number;
  /** The first and last entry checked (seq and hash). */
  readonly first?: { readonly seq: number; readonly hash: string };
  readonly last?: { readonly seq: number; readonly hash: string };
  /** The seq of the entry whose hash is {@link VerifyOptions.head}, when the chain holds it. */
  readonly headSeq?: number;
  readonly problem?: AuditProblem;
}

export interface VerifyOptions {
  /**
   * When checking one file alone, its first entry's predecessor is in a file not checked: its `prev` cannot be
   * checked and the chain may start at any seq. Directories are always checked from entry 1.
   * @default false
   */
  readonly partial?: boolean;
  /**
   * The hash of the chain's last entry as recorded earlier (`audit verify --head`): the chain must still hold it.
   * Without it, entries removed from the end cannot be told apart from entries never written.
   */
  readonly head?: string;
  /** The chain's key (`<audit folder>.key`): without it, keyed entries cannot be checked. */
  readonly key?: AuditKey | undefined;
}

interface Cursor {
  seq: number;
  hash: string;
  started: boolean;
}

/** Whether `v` is an entry hash: 64 lower-case hex digits. */
export const isAuditHash = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** The 1-based line at or after index `from` holding the entry `seq`, if any. */
function lineOfSeq(lines: readonly string[], from: number, seq: number): number | undefined {
  for (let j = from; j < lines.length; j++) {
    try {
      if ((JSON.parse(lines[j] ?? '') as { seq?: unknown }).seq === seq) return j + 1;
    } catch {
      // not an entry: not the one sought
    }
  }
  return undefined;
}

/** Checks one chain given as its files in order. */
export async function verifyChain(
  chain: string,
  files: readonly string[],
  options: VerifyOptions = {},
): Promise<ChainReport> {
  const cursor: Cursor = { seq: 0, hash: GENESIS_HASH, started: false };
  let entries = 0;
  let unkeyed = 0;
  let keyedSeen = false;
  const key = options.key;
  let first: ChainReport['first'];
  let headSeq: number | undefined;
  const report = (problem?: AuditProblem): ChainReport => ({
    chain,
    files,
    entries,
    unkeyed,
    ...(key ? { keyId: key.id } : {}),
    ...(first ? { first, last: { seq: cursor.seq, hash: cursor.hash } } : {}),
    ...(headSeq !== undefined ? { headSeq } : {}),
    ...(problem ? { problem } : {}),
  });
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      return report({
        file,
        line: 0,
        kind: 'unreadable',
        reason: `the file cannot be read: ${(error as Error).message}`,
      });
    }
    const lines = text.split('\n');
    const complete = text.endsWith('\n') || text === '';
    if (complete) lines.pop();
    for (let i = 0; i < lines.length; i++) {
      const at = { file, line: i + 1 };
      const line = lines[i] ?? '';
      if (!complete && i === lines.length - 1)
        return report({
          ...at,
          kind: 'truncated',
          reason: 'the last line is incomplete (no end of line): the entry was cut off',
        });
      let entry: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          throw new Error('not an object');
        entry = parsed as Record<string, unknown>;
      } catch {
        return report({ ...at, kind: 'malformed', reason: 'the line is not a JSON object' });
      }
      const { seq, prev, hash } = entry;
      if (
        (entry.v !== AUDIT_FORMAT_VERSION && entry.v !== UNKEYED_FORMAT_VERSION) ||
        (entry.v === AUDIT_FORMAT_VERSION && typeof entry.keyed !== 'string') ||
        typeof seq !== 'number' ||
        !Number.isInteger(seq) ||
        seq < 1 ||
        !isAuditHash(prev) ||
        !isAuditHash(hash) ||
        typeof entry.event !== 'string' ||
        typeof entry.at !== 'string'
      )
        return report({
          ...at,
          kind: 'malformed',
          reason: `the entry lacks v (${AUDIT_FORMAT_VERSION}, or ${UNKEYED_FORMAT_VERSION} unkeyed), keyed, seq, at, event, prev or hash`,
        });
      const keyed = entry.v === AUDIT_FORMAT_VERSION;
      if (keyed && !key)
        return report({
          ...at,
          kind: 'no-key',
          reason: `entry ${seq} is keyed (key ${String(entry.keyed)}) and no key was given: it cannot be checked without the chain's key file (<audit folder>.key, or --key-file)`,
        });
      if (keyed && key && entry.keyed !== key.id)
        return report({
          ...at,
          kind: 'wrong-key',
          reason: `entry ${seq} was written with key ${String(entry.keyed)}, not with the key given (${key.id})`,
        });
      if (!keyed && key && (keyedSeen || entry.at > key.createdAt))
        return report({
          ...at,
          kind: 'unkeyed',
          reason: `entry ${seq} has no key although it was written after the chain's key was made (${key.createdAt}): the chain was rewritten without the key`,
        });
      if (entryHash(entry, keyed ? key : undefined) !== hash)
        return report({
          ...at,
          kind: 'edited',
          reason: `entry ${seq} was changed after it was written: its hash does not match its content`,
        });
      if (!cursor.started && options.partial) {
        // Checking one file alone: it may start anywhere in the chain.
      } else if (seq > cursor.seq + 1) {
        const later = lineOfSeq(lines, i + 1, cursor.seq + 1);
        if (later !== undefined)
          return report({
            ...at,
            kind: 'out-of-order',
            reason: `entry ${seq} comes before entry ${cursor.seq + 1} (line ${later}): entries were reordered`,
          });
        return report({
          ...at,
          kind: 'missing',
          reason:
            seq - cursor.seq === 2
              ? `entry ${cursor.seq + 1} is missing (entry ${seq} follows entry ${cursor.seq})`
              : `entries ${cursor.seq + 1} to ${seq - 1} are missing (entry ${seq} follows entry ${cursor.seq})`,
        });
      } else if (seq <= cursor.seq) {
        return report({
          ...at,
          kind: 'out-of-order',
          reason: `entry ${seq} comes after entry ${cursor.seq}: entries were reordered or repeated`,
        });
      } else if (prev !== cursor.hash) {
        return report({
          ...at,
          kind: 'broken-link',
          reason: `entry ${seq} does not follow the entry before it (its prev is not that entry's hash): an entry was replaced or rewritten`,
        });
      }
      cursor.seq = seq;
      cursor.hash = hash;
      cursor.started = true;
      entries++;
      if (keyed) keyedSeen = true;
      else unkeyed++;
      first ??= { seq, hash };
      if (hash === options.head) headSeq = seq;
    }
  }
  return report();
}
