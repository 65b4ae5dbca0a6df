/**
 * The writer of one audit chain (docs/audit.md): entries are chained as they are appended (in call order), written
 * in batches (one write for every entry waiting), and each `append` resolves once its entry is on disk. A write
 * that fails rejects its entries and every entry queued after them; the chain goes on from the last entry written,
 * and `ensureWritable` records how many were lost once writing works again.
 *
 * The file stays open between batches, opened with O_DSYNC when entries are synced: a batch is then one write that
 * returns once the entries are on disk, one turn of a busy event loop instead of five (open, stat, write, fdatasync,
 * close). Before each batch the path is looked at (one `stat`, synchronous: a few microseconds): when it no longer
 * names the open file (moved away, replaced, deleted) the path is opened again, so the chain goes on where the
 * administrator expects it.
 */
import { constants, statSync } from 'node:fs';
import { mkdir, open, readFile, rename, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { entryLine, GENESIS_HASH, makeEntry, type AuditEntry, type AuditFields } from './audit-entry.js';
import { chainFiles, checkChainName, currentFileName, lockFileName, rotatedFileName } from './audit-files.js';
import { auditKeyPath, openAuditKey, type AuditKey } from './audit-key.js';
import { acquireLock, releaseLock } from './audit-lock.js';

export interface AuditLogOptions {
  /** The folder of the chain's files. Made (mode 0700) when missing. */
  readonly dir: string;
  /** The chain's name: lower-case letters, digits and '-'. */
  readonly chain: string;
  /**
   * A file that would grow past this size is renamed and the chain goes on in a new file.
   * @default 67108864 (64 MiB)
   */
  readonly maxFileBytes?: number;
  /**
   * fdatasync after each batch, before `append` resolves: entries survive a power cut once acknowledged.
   * @default true
   */
  readonly sync?: boolean;
  /**
   * Hold `<chain>.lock` while open, so that two processes never write one chain.
   * @default true
   */
  readonly lock?: boolean;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /**
   * The chain's key (audit-key.ts).
   * @default the key in `<dir>.key`, made at the first open
   */
  readonly key?: AuditKey;
}

/** The existing log cannot be continued (its last entry cannot be read). */
export class AuditOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditOpenError';
  }
}

interface FileState {
  /** Last entry of the chain. */
  seq: number;
  hash: string;
  /** The current file: bytes, entries and the seq of its first entry. */
  size: number;
  entries: number;
  firstSeq: number;
}

type Item =
  | {
      kind: 'line';
      entry: AuditEntry;
      bytes: Buffer;
      resolve: (e: AuditEntry) => void;
      reject: (e: Error) => void;
    }
  | { kind: 'rotate'; target: string };

export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;

export class AuditLog {
  readonly dir: string;
  readonly chain: string;
  readonly file: string;
  readonly #max: number;
  readonly #sync: boolean;
  readonly #lock: string | undefined;
  readonly #now: () => Date;
  readonly #key: AuditKey;
  /** What the chain will be once everything queued is written. */
  #projected: FileState;
  /** What is on disk. */
  #durable: FileState;
  #queue: Item[] = [];
  #flushing: Promise<void> | undefined;
  #failure: Error | undefined;
  #lost = 0;
  #closed = false;
  /** The open file, with its device and inode as opened (to notice the path being given another file). */
  #handle: { fh: FileHandle; dev: number; ino: number } | undefined;

  private constructor(options: AuditLogOptions, state: FileState, lock: string | undefined, key: AuditKey) {
    this.#key = key;
    this.dir = options.dir;
    this.chain = options.chain;
    this.file = join(options.dir, currentFileName(options.chain));
    this.#max = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#sync = options.sync ?? true;
    this.#lock = lock;
    this.#now = options.now ?? (() => new Date());
    this.#projected = { ...state };
    this.#durable = { ...state };
  }

  /**
   * Opens a chain to append to: continues after the last entry of its files, or starts at entry 1. A last line cut
   * off by a crash is taken out of the file and returned (`cutOff`) for the caller to record.
   * @throws AuditLockedError when another process writes the chain; AuditOpenError when the last entry is unreadable.
   */
  static async open(options: AuditLogOptions): Promise<{ log: AuditLog; cutOff?: string }> {
    checkChainName(options.chain);
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    const key = options.key ?? (await openAuditKey(auditKeyPath(options.dir)));
    const lock = options.lock === false ? undefined : join(options.dir, lockFileName(options.chain));
    if (lock) await acquireLock(lock);
    try {
      const { state, cutOff } = await readState(options.dir, options.chain);
      return { log: new AuditLog(options, state, lock, key), ...(cutOff !== undefined ? { cutOff } : {}) };
    } catch (error) {
      if (lock) await releaseLock(lock);
      throw error;
    }
  }

  /** The last entry appended (written or queued). */
  get head(): { readonly seq: number; readonly hash: string } {
    return { seq: this.#projected.seq, hash: this.#projected.hash };
  }

  /** Why the last write failed, while writing has not worked again since. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Appends an entry; resolves once it is written (and synced), rejects when it could not be. */
  append(event: string, fields: AuditFields = {}): Promise<AuditEntry> {
    if (this.#closed) return Promise.reject(new Error('the audit log is closed'));
    let entry: AuditEntry;
    try {
      entry = this.#chainEntry(event, fields);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const bytes = Buffer.from(entryLine(entry));
    const p = this.#projected;
    if (p.entries > 0 && p.size + bytes.length > this.#max) {
      // Rotation: the full file is renamed; the new file starts with an entry naming it (the chain goes on).
      const target = rotatedFileName(this.chain, p.firstSeq);
      this.#queue.push({ kind: 'rotate', target });
      p.seq = entry.seq - 1;
      p.hash = entry.prev;
      const marker = this.#chainEntry('audit.rotated', {
        previous_file: target,
        previous_entries: p.entries,
      });
      const markerBytes = Buffer.from(entryLine(marker));
      Object.assign(p, { size: 0, entries: 0, firstSeq: marker.seq });
      this.#enqueue(marker, markerBytes).catch(() => undefined);
      entry = this.#chainEntry(event, fields);
      return this.#enqueue(entry, Buffer.from(entryLine(entry)));
    }
    return this.#enqueue(entry, bytes);
  }

  /**
   * True when entries can be written. After a failure it tries to write an `audit.resumed` entry (with the number of
   * entries lost and the error) and says whether that worked.
   */
  async ensureWritable(): Promise<boolean> {
    const failure = this.#failure;
    if (!failure) return true;
    try {
      await this.append('audit.resumed', { lost_entries: this.#lost, error: failure.message });
      this.#failure = undefined;
      this.#lost = 0;
      return true;
    } catch {
      this.#lost -= 1; // the resumed entry itself is not one of the lost
      return false;
    }
  }

  /** Waits for queued entries, then releases the chain. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#flushing) await this.#flushing;
    await this.#closeFile();
    if (this.#lock) await releaseLock(this.#lock);
  }

  #chainEntry(event: string, fields: AuditFields): AuditEntry {
    const entry = makeEntry(this.#projected, event, fields, this.#now(), this.#key);
    this.#projected.seq = entry.seq;
    this.#projected.hash = entry.hash;
    if (this.#projected.entries === 0) this.#projected.firstSeq = entry.seq;
    return entry;
  }

  #enqueue(entry: AuditEntry, bytes: Buffer): Promise<AuditEntry> {
    this.#projected.size += bytes.length;
    this.#projected.entries += 1;
    const done = new Promise<AuditEntry>((resolve, reject) =>
      this.#queue.push({ kind: 'line', entry, bytes, resolve, reject }),
    );
    this.#flushing ??= this.#flush();
    return done;
  }

  async #flush(): Promise<void> {
    try {
      // Let the appends of this tick join the batch.
      await new Promise<void>((r) => setImmediate(r));
      while (this.#queue.length > 0) await this.#writeBatch(this.#queue.splice(0));
    } finally {
      // In the same step as the last look at the queue: an append after it starts a new flush.
      this.#flushing = undefined;
    }
  }

  /** Writes a batch; when that fails, rejects it and everything queued after it (they chain on it). */
  async #writeBatch(batch: Item[]): Promise<void> {
    let lines: Extract<Item, { kind: 'line' }>[] = [];
    try {
      for (const item of batch) {
        if (item.kind === 'line') {
          lines.push(item);
          continue;
        }
        await this.#write(lines);
        lines = [];
        await this.#rotate(item.target);
      }
      await this.#write(lines);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      const rejected = [...batch, ...this.#queue.splice(0)].filter(
        (i): i is Extract<Item, { kind: 'line' }> => i.kind === 'line' && !written.has(i),
      );
      this.#lost += rejected.length;
      this.#failure = failure;
      this.#projected = { ...this.#durable };
      for (const item of rejected) item.reject(failure);
    }
  }

  /** The open file, opened again when the path no longer names it. */
  async #file(): Promise<{ fh: FileHandle; size: number }> {
    const held = this.#handle;
    if (held) {
      let current: { dev: number; ino: number } | undefined;
      try {
        current = statSync(this.file);
      } catch {
        current = undefined; // deleted: made again below
      }
      if (current && current.dev === held.dev && current.ino === held.ino)
        return { fh: held.fh, size: this.#durable.size };
      await this.#closeFile();
    }
    const flags =
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (this.#sync ? constants.O_DSYNC : 0);
    const fh = await open(this.file, flags, 0o600);
    try {
      const { dev, ino, size } = await fh.stat();
      this.#handle = { fh, dev, ino };
      return { fh, size };
    } catch (error) {
      await fh.close().catch(() => undefined);
      throw error;
    }
  }

  async #closeFile(): Promise<void> {
    const held = this.#handle;
    this.#handle = undefined;
    await held?.fh.close().catch(() => undefined);
  }

  async #write(lines: Extract<Item, { kind: 'line' }>[]): Promise<void> {
    if (lines.length === 0) return;
    const buffer = Buffer.concat(lines.map((l) => l.bytes));
    try {
      const { fh, size: before } = await this.#file();
      // O_DSYNC: the write returns once the entries are on disk (as a write and an fdatasync would).
      const { bytesWritten } = await fh.write(buffer);
      if (bytesWritten !== buffer.length) {
        await fh.truncate(before).catch(() => undefined);
        throw new Error(`only ${bytesWritten} of ${buffer.length} bytes could be written to ${this.file}`);
      }
      const last = lines[lines.length - 1]?.entry;
      const d = this.#durable;
      if (d.entries === 0 && lines[0]) d.firstSeq = lines[0].entry.seq;
      d.size = before + buffer.length;
      d.entries += lines.length;
      if (last) Object.assign(d, { seq: last.seq, hash: last.hash });
    } catch (error) {
      // Opened again at the next batch: the path may be given a writable file meanwhile.
      await this.#closeFile();
      throw error;
    }
    if (this.#sync && this.#durable.entries === lines.length) await syncDir(this.dir);
    for (const l of lines) {
      written.add(l);
      l.resolve(l.entry);
    }
  }

  async #rotate(target: string): Promise<void> {
    await this.#closeFile();
    await rename(this.file, join(this.dir, target));
    if (this.#sync) await syncDir(this.dir);
    Object.assign(this.#durable, { size: 0, entries: 0, firstSeq: this.#durable.seq + 1 });
  }
}

/** Items already written (never rejected afterwards). */
const written = new WeakSet<object>();

async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The chain's last entry and the current file's size, entries and first seq. */
async function readState(dir: string, chain: string): Promise<{ state: FileState; cutOff?: string }> {
  const files = (await chainFiles(dir)).get(chain) ?? [];
  const state: FileState = { seq: 0, hash: GENESIS_HASH, size: 0, entries: 0, firstSeq: 1 };
  let cutOff: string | undefined;
  for (let i = files.length - 1; i >= 0; i--) {
    const file = files[i] as string;
    const isCurrent = file === join(dir, currentFileName(chain));
    let text = await readFile(file, 'utf8');
    if (isCurrent && text !== '' && !text.endsWith('\n')) {
      // A write cut off by a crash: the partial line leaves the file and is recorded by the caller.
      const keep = text.lastIndexOf('\n') + 1;
      cutOff = text.slice(keep);
      text = text.slice(0, keep);
      await truncate(file, Buffer.byteLength(text));
    }
    const lines = text.split('\n').filter((l) => l !== '');
    if (isCurrent) {
      state.size = Buffer.byteLength(text);
      state.entries = lines.length;
    }
    const last = lines[lines.length - 1];
    if (last === undefined) continue;
    let entry: { seq?: unknown; hash?: unknown };
    try {
      entry = JSON.parse(last) as typeof entry;
    } catch (cause) {
      throw new AuditOpenError(
        `the last entry of the audit log ${file} cannot be read; check it with 'audit verify' and move the file away to start a new chain`,
        { cause },
      );
    }
    if (typeof entry.seq !== 'number' || typeof entry.hash !== 'string')
      throw new AuditOpenError(
        `the last entry of the audit log ${file} has no seq or hash; check it with 'audit verify' and move the file away to start a new chain`,
      );
    state.seq = entry.seq;
    state.hash = entry.hash;
    if (isCurrent) {
      const firstLine = lines[0] ?? '';
      let first: { seq?: unknown } = {};
      try {
        first = JSON.parse(firstLine) as typeof first;
      } catch {
        first = {};
      }
      state.firstSeq = typeof first.seq === 'number' ? first.seq : entry.seq;
    } else state.firstSeq = entry.seq + 1;
    break;
  }
  return cutOff !== undefined ? { state, cutOff } : { state };
}
