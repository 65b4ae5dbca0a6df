import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, opendir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

import {
  ResultStoreFullError,
  checkKey,
  isStoreKey,
  type ResultStore,
  type StoreEntry,
} from './result-store.js';

/** The name of a temporary file of an upload: `.tmp-<16 hex digits>-<key>`. */
const TEMPORARY = /^\.tmp-[0-9a-f]{16}-[a-z0-9][a-z0-9-]{0,127}$/;

/** A file system has no room (ENOSPC) or the quota is reached (EDQUOT). */
const FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * The result store in a folder (`result_store.type: folder`): one file per object, named by its key. An object is
 * written to a hidden temporary file, flushed to disk, then renamed to its key, so a reader sees it whole or not at
 * all. Keys are checked (checkKey) and the path resolved inside the folder: no key reaches outside it.
 */
export class FolderResultStore implements ResultStore {
  readonly kind = 'folder';
  readonly #dir: string;

  constructor(directory: string) {
    this.#dir = resolve(directory);
  }

  #path(key: string): string {
    const path = resolve(this.#dir, checkKey(key));
    if (!path.startsWith(this.#dir + sep)) throw new TypeError('a result store key left its folder');
    return path;
  }

  async put(key: string, data: AsyncIterable<Uint8Array>): Promise<number> {
    const path = this.#path(key);
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const temporary = join(this.#dir, `.tmp-${randomBytes(8).toString('hex')}-${key}`);
    let size = 0;
    try {
      const file = await open(temporary, 'wx', 0o600);
      try {
        for await (const chunk of data) {
          await file.write(chunk);
          size += chunk.byteLength;
        }
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, path);
      return size;
    } catch (error) {
      await rm(temporary, { force: true });
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== undefined && FULL.has(code))
        throw new ResultStoreFullError(`the result folder ${this.#dir} is full (${code})`, { cause: error });
      throw error;
    }
  }

  async get(key: string): Promise<{ size: number; stream: ReturnType<typeof createReadStream> } | undefined> {
    const path = this.#path(key);
    try {
      const { size } = await stat(path);
      return { size, stream: createReadStream(path, { highWaterMark: 256 * 1024 }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  async deleteOthers(prefix: string, keep: string): Promise<void> {
    checkKey(prefix);
    checkKey(keep);
    let names: string[];
    try {
      names = await readdir(this.#dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names)
      if (name.startsWith(prefix) && name !== keep) await rm(this.#path(name), { force: true });
  }

  async *list(): AsyncGenerator<StoreEntry> {
    let dir;
    try {
      dir = await opendir(this.#dir, { bufferSize: 256 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for await (const entry of dir) {
      if (!entry.isFile()) continue;
      const temporary = TEMPORARY.test(entry.name);
      if (!temporary && !isStoreKey(entry.name)) continue;
      let info;
      try {
        info = await stat(join(this.#dir, entry.name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // renamed or removed meanwhile
        throw error;
      }
      // The last write is the latest the write can have begun.
      yield {
        name: entry.name,
        temporary,
        size: info.size,
        startedMs: info.mtimeMs,
        writtenMs: info.mtimeMs,
      };
    }
  }

  async remove(entry: Pick<StoreEntry, 'name' | 'temporary'>): Promise<void> {
    if (!entry.temporary) return this.delete(entry.name);
    if (!TEMPORARY.test(entry.name)) throw new TypeError('not a temporary of the result folder');
    await rm(join(this.#dir, entry.name), { force: true });
  }
}
