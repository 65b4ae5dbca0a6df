import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';

import type { Database } from '../db/schema.js';
import {
  chunkTotals,
  deleteChunks,
  listChunkObjects,
  deleteRunChunks,
  insertChunk,
  readChunk,
  renameChunks,
} from '../repositories/result-chunk.js';
import { checkKeep, checkKey, parseOutputKey, type ResultStore, type StoreEntry } from './result-store.js';

/**
 * The key of the pieces of a write not finished yet: `tmp-<when it began, base 36 milliseconds>-<16 hex digits>`
 * (`tmp-<16 hex digits>` before the time was part of it). Never an output's key, which starts with `result-`.
 */
const TEMPORARY = /^tmp-(?:([0-9a-z]{1,11})-)?[0-9a-f]{16}$/;

/** The size of the pieces an object is kept in. */
const PIECE_BYTES = 1024 * 1024;

/**
 * The result store in the server's database (`result_store.type: database`): an object is kept as pieces of 1 MiB in
 * `result_chunk`, written under a temporary key and given its key (and its run, indexed) in one transaction once
 * whole; it is read piece by piece. For deployments without a folder shared by every instance (PostgreSQL behind several instances).
 */
export class DatabaseResultStore implements ResultStore {
  readonly kind = 'database';
  readonly #db: () => Kysely<Database>;

  /** @param db the database, asked for at each use (the handle may replace its pool). */
  constructor(db: () => Kysely<Database>) {
    this.#db = db;
  }

  async put(key: string, data: AsyncIterable<Uint8Array>): Promise<number> {
    checkKey(key);
    const temporary = `tmp-${Date.now().toString(36)}-${randomBytes(8).toString('hex')}`;
    let size = 0;
    let seq = 0;
    let piece: Buffer[] = [];
    let pieceBytes = 0;
    const flush = async (): Promise<void> => {
      if (pieceBytes === 0) return;
      await insertChunk(this.#db(), temporary, seq, Buffer.concat(piece, pieceBytes));
      seq += 1;
      piece = [];
      pieceBytes = 0;
    };
    try {
      for await (const chunk of data) {
        let bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        size += bytes.length;
        while (pieceBytes + bytes.length >= PIECE_BYTES) {
          const take = PIECE_BYTES - pieceBytes;
          piece.push(bytes.subarray(0, take));
          pieceBytes += take;
          bytes = bytes.subarray(take);
          await flush();
        }
        if (bytes.length) {
          piece.push(Buffer.from(bytes));
          pieceBytes += bytes.length;
        }
      }
      await flush();
      await renameChunks(this.#db(), temporary, key, parseOutputKey(key)?.resultId ?? null);
      return size;
    } catch (error) {
      await deleteChunks(this.#db(), temporary).catch(() => undefined);
      throw error;
    }
  }

  async get(key: string): Promise<{ size: number; stream: Readable } | undefined> {
    checkKey(key);
    const { pieces, bytes } = await chunkTotals(this.#db(), key);
    if (pieces === 0) return undefined;
    const db = this.#db;
    async function* read(): AsyncGenerator<Buffer> {
      for (let seq = 0; seq < pieces; seq += 1) {
        const data = await readChunk(db(), key, seq);
        if (data === undefined) throw new Error(`piece ${seq} of stored result ${key} is missing`);
        yield data;
      }
    }
    return { size: bytes, stream: Readable.from(read(), { objectMode: false }) };
  }

  async delete(key: string): Promise<void> {
    await deleteChunks(this.#db(), checkKey(key));
  }

  async deleteRunOutputs(resultId: number, keep?: string): Promise<void> {
    checkKeep(resultId, keep);
    await deleteRunChunks(this.#db(), resultId, keep);
  }

  /** Nothing to ready: the database's migrations made the table and its index. */
  async prepare(): Promise<void> {}

  async *list(): AsyncGenerator<StoreEntry> {
    for (const { key, bytes } of await listChunkObjects(this.#db())) {
      const temporary = TEMPORARY.exec(key);
      // Pieces carry no time: a temporary tells when its write began, and nothing tells when it last wrote.
      yield {
        name: key,
        temporary: temporary !== null,
        size: bytes,
        startedMs: temporary?.[1] === undefined ? 0 : parseInt(temporary[1], 36),
        writtenMs: null,
      };
    }
  }

  async remove(entry: Pick<StoreEntry, 'name' | 'temporary'>): Promise<void> {
    if (entry.temporary && !TEMPORARY.test(entry.name))
      throw new TypeError('not a temporary of the result store');
    await deleteChunks(this.#db(), checkKey(entry.name));
  }
}
