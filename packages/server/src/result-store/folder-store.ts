import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, opendir, readdir, rename, rm, rmdir, stat, statfs, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

import {
  ResultStoreFullError,
  checkKeep,
  checkKey,
  checkResultId,
  isBlobKey,
  parseOutputKey,
  type ResultStore,
  type StoreEntry,
} from './result-store.js';

/** The name of a temporary file of an upload: `.tmp-<16 hex digits>-<key>`. */
const TEMPORARY = /^\.tmp-[0-9a-f]{16}-[a-z0-9][a-z0-9-]{0,127}$/;

/** The folder of a run's outputs: `result-<id>` (no output's key has this form). */
const RUN_FOLDER = /^result-([1-9][0-9]{0,15})$/;

/**
 * A file, at the top of the folder, whose presence says the outputs of the earlier layout (one file per output at
 * the top) have been moved into their runs' folders.
 */
const LAYOUT_MARK = '.layout-run-folders';

/** The folder of the uploads to `/blobstream` (`blobs/blob-<uuid>`). */
const BLOB_FOLDER = 'blobs';

/** A file system has no room (ENOSPC) or the quota is reached (EDQUOT). */
const FULL = new Set(['ENOSPC', 'EDQUOT']);

/**
 * The result store in a folder (`result_store.type: folder`): one file per output, named by its key, in a folder per
 * run (`result-<id>/result-<id>-<sha256>`), so finding a run's outputs reads that run's folder alone, whatever the
 * store holds (docs/large-results.md#the-result-store). An object is written to a hidden temporary file at the top,
 * flushed to disk, then renamed into its run's folder, so a reader sees it whole or not at all. Only output keys
 * are taken (parseOutputKey), and the path is resolved inside the folder: no key reaches outside it.
 */
export class FolderResultStore implements ResultStore {
  readonly kind = 'folder';
  readonly #dir: string;

  constructor(directory: string) {
    this.#dir = resolve(directory);
  }

  /** The folder of the outputs of run `resultId`. */
  #runDir(resultId: number): string {
    return this.#inside(`result-${checkResultId(resultId)}`);
  }

  #inside(name: string): string {
    const path = resolve(this.#dir, name);
    if (!path.startsWith(this.#dir + sep)) throw new TypeError('a result store key left its folder');
    return path;
  }

  /** Where `key` is kept, and where the earlier layout kept it (at the top of the folder). */
  #paths(key: string): { runDir: string; path: string; legacy: string } {
    // Uploads to /blobstream have a folder of their own, outside the runs' folders the start-up sweep reads: the
    // database says which expire (result-store/blob-sweep.ts).
    if (isBlobKey(checkKey(key))) {
      const path = join(this.#inside(BLOB_FOLDER), key);
      return { runDir: this.#inside(BLOB_FOLDER), path, legacy: path };
    }
    const output = parseOutputKey(key);
    if (!output) throw new TypeError(`not an output key: ${JSON.stringify(key.slice(0, 200))}`);
    const runDir = this.#runDir(output.resultId);
    return { runDir, path: join(runDir, key), legacy: this.#inside(key) };
  }

  /** Removes the folder of a run once it holds nothing (an upload may have filled it meanwhile: it then stays). */
  async #dropRunDir(runDir: string): Promise<void> {
    try {
      await rmdir(runDir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
  }

  async prepare(): Promise<void> {
    try {
      await stat(join(this.#dir, LAYOUT_MARK));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // No folder yet: nothing to move; the first upload makes it, with the mark.
    const dir = await this.#open(this.#dir);
    if (!dir) return;
    // Outputs of the earlier layout, one file per output at the top: moved into their runs' folders, once.
    // Several instances starting at once may move the same file: the one that finds it gone has nothing to do.
    for await (const entry of dir) {
      const output = entry.isFile() ? parseOutputKey(entry.name) : undefined;
      if (!output) continue;
      const { runDir, path, legacy } = this.#paths(entry.name);
      await mkdir(runDir, { recursive: true, mode: 0o700 });
      try {
        await rename(legacy, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    await this.#mark();
  }

  /** Leaves the mark that this folder's outputs are in their runs' folders. */
  async #mark(): Promise<void> {
    await writeFile(join(this.#dir, LAYOUT_MARK), 'outputs are in result-<id>/ (docs/large-results.md)\n', {
      mode: 0o600,
    });
  }

  async room(): Promise<number | undefined> {
    try {
      const disk = await statfs(this.#dir);
      return disk.bavail * disk.bsize;
    } catch {
      return undefined; // not made yet, or unreadable: the write itself tells
    }
  }

  async put(key: string, data: AsyncIterable<Uint8Array>): Promise<number> {
    const { runDir, path } = this.#paths(key);
    // A folder this version makes holds no output of the earlier layout.
    if ((await mkdir(this.#dir, { recursive: true, mode: 0o700 })) !== undefined) await this.#mark();
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
      // The run's folder may be removed between its making and the rename (its last other output was removed).
      for (let attempt = 1; ; attempt += 1) {
        await mkdir(runDir, { recursive: true, mode: 0o700 });
        try {
          await rename(temporary, path);
          break;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw error;
        }
      }
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
    const { path, legacy } = this.#paths(key);
    // At the top: written by an instance of an earlier version sharing the folder (docs/large-results.md).
    for (const at of [path, legacy]) {
      try {
        const { size } = await stat(at);
        return { size, stream: createReadStream(at, { highWaterMark: 256 * 1024 }) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return undefined;
  }

  async delete(key: string): Promise<void> {
    const { runDir, path, legacy } = this.#paths(key);
    await rm(path, { force: true });
    await rm(legacy, { force: true });
    await this.#dropRunDir(runDir);
  }

  async deleteRunOutputs(resultId: number, keep?: string): Promise<void> {
    checkKeep(resultId, keep);
    const runDir = this.#runDir(resultId);
    // Most runs have no folder (their output was small). A look that finds nothing costs one metadata lookup here,
    // where a refused readdir would build an error with its stack for every finished run (1.2% of the
    // server's time under bench/api-mixed); one that finds the folder reads it, and a folder gone meanwhile is nothing to remove.
    if (!existsSync(runDir)) return;
    let names: string[];
    try {
      names = await readdir(runDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names)
      if (name !== keep && parseOutputKey(name)?.resultId === resultId)
        await rm(join(runDir, name), { force: true });
    if (keep === undefined) await this.#dropRunDir(runDir);
  }

  async *list(): AsyncGenerator<StoreEntry> {
    for await (const { folder, resultId, name } of this.#files()) {
      const temporary = resultId === undefined && TEMPORARY.test(name);
      const output = parseOutputKey(name);
      if (!temporary && (!output || (resultId !== undefined && output.resultId !== resultId))) continue;
      let info;
      try {
        info = await stat(join(folder, name));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // renamed or removed meanwhile
        throw error;
      }
      // The last write is the latest the write can have begun.
      yield { name, temporary, size: info.size, startedMs: info.mtimeMs, writtenMs: info.mtimeMs };
    }
  }

  /** The files at the top of the folder (temporaries, outputs of the earlier layout) and in the runs' folders. */
  async *#files(): AsyncGenerator<{ folder: string; resultId?: number; name: string }> {
    const top = await this.#open(this.#dir);
    if (!top) return;
    for await (const entry of top) {
      const run = entry.isDirectory() ? RUN_FOLDER.exec(entry.name) : null;
      if (entry.isFile()) yield { folder: this.#dir, name: entry.name };
      else if (run) {
        const folder = join(this.#dir, entry.name);
        const files = await this.#open(folder);
        if (!files) continue;
        const resultId = Number(run[1]);
        for await (const inner of files) if (inner.isFile()) yield { folder, resultId, name: inner.name };
      }
    }
  }

  async #open(folder: string): Promise<Awaited<ReturnType<typeof opendir>> | undefined> {
    try {
      return await opendir(folder, { bufferSize: 256 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // none yet, or removed meanwhile
      throw error;
    }
  }

  async remove(entry: Pick<StoreEntry, 'name' | 'temporary'>): Promise<void> {
    if (!entry.temporary) return this.delete(entry.name);
    if (!TEMPORARY.test(entry.name)) throw new TypeError('not a temporary of the result folder');
    await rm(join(this.#dir, entry.name), { force: true });
  }
}
