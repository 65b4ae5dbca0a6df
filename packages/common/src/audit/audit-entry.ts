/**
 * One entry of an audit log (docs/audit.md): a JSON object on one line whose `hash` is the HMAC-SHA256, under the
 * chain's key, of the canonical JSON of the entry without `hash` (version 2, `keyed` naming the key; version 1,
 * written before chains had keys, the plain SHA-256), and whose `prev` is the `hash` of the entry before it.
 */
import { createHash } from 'node:crypto';
import { auditMac, type AuditKey } from './audit-key.js';
import { canonicalJson } from './canonical-json.js';

/** Version of the entry format: 2 is keyed, 1 (read, no longer written) is not. */
export const AUDIT_FORMAT_VERSION = 2;
export const UNKEYED_FORMAT_VERSION = 1;

/** `prev` of the very first entry of a chain. */
export const GENESIS_HASH = '0'.repeat(64);

/** Members every entry has; an event's own fields may not use these names. */
export const RESERVED_FIELDS = ['v', 'seq', 'at', 'event', 'prev', 'hash', 'keyed'] as const;

export interface AuditEntry {
  readonly v: number;
  /** 1 for the first entry of a chain, one more for each entry after it, across rotated files. */
  readonly seq: number;
  /** ISO 8601 time (UTC) the entry was made. */
  readonly at: string;
  /** What happened, e.g. `http.request`, `user.login`, `run.finished`. */
  readonly event: string;
  readonly prev: string;
  readonly hash: string;
  readonly [field: string]: unknown;
}

/** The fields an event adds to an entry (values must be JSON: no functions, no non-finite numbers). */
export type AuditFields = Readonly<Record<string, unknown>>;

/**
 * The `hash` of an entry: with `key`, the HMAC-SHA256 of the canonical JSON of the entry without its `hash`;
 * without, its SHA-256 (the unkeyed entries of version 1).
 */
export function entryHash(entry: Readonly<Record<string, unknown>>, key?: AuditKey): string {
  const { hash: _hash, ...rest } = entry;
  const text = canonicalJson(rest);
  return key ? auditMac(key, text) : createHash('sha256').update(text).digest('hex');
}

/** Builds the entry that follows `prev` (its seq and hash), with `fields` beside the fixed members. */
export function makeEntry(
  previous: { readonly seq: number; readonly hash: string },
  event: string,
  fields: AuditFields,
  at: Date,
  key: AuditKey,
): AuditEntry {
  for (const name of RESERVED_FIELDS)
    if (name in fields) throw new TypeError(`an audit field may not be named '${name}'`);
  const body = {
    ...fields,
    v: AUDIT_FORMAT_VERSION,
    keyed: key.id,
    seq: previous.seq + 1,
    at: at.toISOString(),
    event,
    prev: previous.hash,
  };
  return { ...body, hash: entryHash(body, key) };
}

/** The line an entry is stored as (canonical JSON and a newline). */
export const entryLine = (entry: AuditEntry): string => `${canonicalJson(entry)}\n`;

/** SHA-256 (hex) of bytes or text: the form audit entries record hashes of inputs in. */
export const sha256Hex = (data: string | Uint8Array): string =>
  createHash('sha256').update(data).digest('hex');
