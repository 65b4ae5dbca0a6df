import type { Readable } from 'node:stream';

/**
 * Where the outputs of runs too large for a JSON body are held (docs/large-results.md): the database or a folder
 * today, an object store later. An object is written from a stream and read as a stream, never held whole in
 * memory; it appears under its key only once whole, so an upload cut short leaves nothing under the key.
 */
export interface ResultStore {
  /** What the store is, for logs and `/health`: `database`, `folder`. */
  readonly kind: string;

  /**
   * Writes `data` under `key`, replacing what the key held. The object appears once `data` has ended and is
   * written whole; when `data` fails (the upload is cut, its checksum is wrong) nothing is left of it.
   * @returns the number of bytes written.
   * @throws ResultStoreFullError when the store has no room left; the error of `data` when it fails.
   */
  put(key: string, data: AsyncIterable<Uint8Array>): Promise<number>;

  /**
   * The bytes the store has room for now, when it can tell (a folder: the free space of its disk), so that an
   * upload declared larger is refused before its body is read. Undefined: the store cannot tell.
   */
  room?(): Promise<number | undefined>;

  /** The object under `key` and its size, or undefined when there is none. */
  get(key: string): Promise<{ size: number; stream: Readable } | undefined>;

  /** Removes the object under `key` (nothing happens when there is none). */
  delete(key: string): Promise<void>;

  /**
   * Removes every output of run `resultId` (the objects under its {@link outputKey}s) except the one under `keep`,
   * or all of them without `keep`. Called by every report that finishes a run without naming an upload, so it costs
   * the same whatever the store holds: one look at the run's own objects (docs/large-results.md#the-result-store).
   * @throws TypeError when `keep` is not an output key of `resultId`.
   */
  deleteRunOutputs(resultId: number, keep?: string): Promise<void>;

  /**
   * Readies the store at start, before the server takes requests: the folder store moves the outputs of its earlier
   * layout into their runs' folders, once.
   */
  prepare(): Promise<void>;

  /**
   * Every object, and every temporary a write left behind (a server stopped in the middle of an upload), for the
   * start-up sweep (result-store/sweep.ts). What the store does not recognize as its own is not listed.
   */
  list(): AsyncIterable<StoreEntry>;

  /** Removes an object or a temporary that {@link list} gave (nothing happens when it is gone). */
  remove(entry: Pick<StoreEntry, 'name' | 'temporary'>): Promise<void>;
}

/** What {@link ResultStore.list} finds. */
export interface StoreEntry {
  /** The key of an object, or the name of a temporary. */
  readonly name: string;
  /** A write not finished yet, or never to finish (its server stopped). */
  readonly temporary: boolean;
  /** The bytes it holds. */
  readonly size: number;
  /** When its write began, at the latest (milliseconds since the epoch; 0 when older than the store can tell). */
  readonly startedMs: number;
  /** When a byte was last written to it, or null when the store cannot tell. */
  readonly writtenMs: number | null;
}

/** The store has no room left for an object (a full disk, a quota): the upload is discarded. */
export class ResultStoreFullError extends Error {
  override readonly name = 'ResultStoreFullError';
}

/** Keys are made by the server from a result id and a checksum; anything else is refused before it reaches a store. */
const KEY = /^[a-z0-9][a-z0-9-]{0,127}$/;

/** Whether `name` has the form of a store key. */
export const isStoreKey = (name: string): boolean => KEY.test(name);

/** @throws TypeError when `key` is not a store key (a path, a dot, an upper-case letter: never from a caller). */
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new TypeError(`not a result store key: ${JSON.stringify(key.slice(0, 200))}`);
  return key;
}

/** The result id and checksum an output's key names, or undefined when `key` is no output's key. */
export function parseOutputKey(key: string): { resultId: number; sha256: string } | undefined {
  const match = /^result-([1-9][0-9]{0,15})-([0-9a-f]{64})$/.exec(key);
  if (!match) return undefined;
  const resultId = Number(match[1]);
  return Number.isSafeInteger(resultId) ? { resultId, sha256: match[2]! } : undefined;
}

/** The start of the keys of every output of result `resultId`. */
export const outputKeyPrefix = (resultId: number): string => `result-${checkResultId(resultId)}-`;

/** @throws TypeError when `resultId` cannot be a result's id (never from a caller: ids come from the database). */
export function checkResultId(resultId: number): number {
  if (!Number.isSafeInteger(resultId) || resultId < 1) throw new TypeError(`not a result id: ${resultId}`);
  return resultId;
}

/** @throws TypeError when `keep` is given and is not the key of an output of result `resultId`. */
export function checkKeep(resultId: number, keep: string | undefined): void {
  checkResultId(resultId);
  if (keep !== undefined && parseOutputKey(checkKey(keep))?.resultId !== resultId)
    throw new TypeError(`not an output key of result ${resultId}: ${JSON.stringify(keep.slice(0, 200))}`);
}

/** The key of the output of result `resultId` whose SHA-256 is `sha256` (64 hex digits). */
export function outputKey(resultId: number, sha256: string): string {
  return checkKey(`${outputKeyPrefix(resultId)}${sha256}`);
}

/** The key of an upload to `/blobstream` (docs/vantage6-4.md#uploads-to-blobstream): `blob-<uuid>`. */
export function blobKey(uuid: string): string {
  if (!isBlobUuid(uuid)) throw new TypeError(`not a blob uuid: ${JSON.stringify(uuid.slice(0, 200))}`);
  return `blob-${uuid}`;
}

/** Whether `text` is a UUID in the lower-case form the server gives uploads. */
export const isBlobUuid = (text: string): boolean =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text);

/** Whether `key` is the key of an upload to `/blobstream`. */
export const isBlobKey = (key: string): boolean => key.startsWith('blob-') && isBlobUuid(key.slice(5));
