import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';

import type { Database } from '../db/schema.js';
import {
  chunkTotals,
  deleteChunks,
  deleteOtherChunks,
  insertChunk,
  readChunk,
  renameChunks,
} from '../repositories/result-chunk.js';
import { checkKey, type ResultStore } from './result-store.js';

/** The size of the pieces an object is kept in. */
const PIECE_BYTES = 1024 * 1024;

/**
 * The result store in the server's database (`result_store.type: database`): an object is kept as pieces of 1 MiB in
 * `result_chunk`, written under a temporary key and given its key in one transaction once whole; it is read piece by
 * piece. For deployments without a folder shared by every instance (PostgreSQL behind several instances).
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
    const temporary = `tmp-${randomBytes(8).toString('hex')}`;
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
      await renameChunks(this.#db(), temporary, key);
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

  async deleteOthers(prefix: string, keep: string): Promise<void> {
    await deleteOtherChunks(this.#db(), checkKey(prefix), checkKey(keep));
  }
}
