/**
 * The server's audit log (docs/audit.md): one hash-chained file per server instance in `<data dir>/audit`. Several
 * instances on one data folder each take their own chain (`server`, `server-2`, …).
 */
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import {
  appendOrReport,
  AuditLockedError,
  AuditLog,
  logAuditHead,
  watchAuditHead,
  type AuditEntry,
  type AuditFields,
} from '@federa/common';
import { SERVER_VERSION } from '../version.js';

/** How many instances may share one data folder's audit directory. */
const MAX_CHAINS = 32;

export interface ServerAuditOptions {
  readonly dir: string;
  readonly maxFileBytes: number;
  readonly sync: boolean;
  readonly log: FastifyBaseLogger;
}

/**
 * Opens the first chain `<base>`, `<base>-2`, … of `dir` that no other process writes.
 * @throws when none is free or the log cannot be opened.
 */
export async function openFreeChain(
  dir: string,
  base: string,
  options: { readonly maxFileBytes: number; readonly sync: boolean },
): Promise<Awaited<ReturnType<typeof AuditLog.open>>> {
  for (let i = 1; i < MAX_CHAINS; i++) {
    try {
      return await AuditLog.open({
        dir,
        chain: i === 1 ? base : `${base}-${i}`,
        maxFileBytes: options.maxFileBytes,
        sync: options.sync,
      });
    } catch (error) {
      if (!(error instanceof AuditLockedError)) throw error;
    }
  }
  return AuditLog.open({
    dir,
    chain: `${base}-${MAX_CHAINS}`,
    maxFileBytes: options.maxFileBytes,
    sync: options.sync,
  });
}

export class ServerAudit {
  readonly #log: AuditLog;
  readonly #logger: FastifyBaseLogger;
  readonly #stopHead: () => void;
  /** Entries written and entries that could not be written since the start (read by the metrics at scrape time). */
  readonly counts = { written: 0, failed: 0 };

  private constructor(log: AuditLog, logger: FastifyBaseLogger) {
    this.#log = log;
    this.#logger = logger;
    this.#stopHead = watchAuditHead(log, logger);
  }

  /**
   * Opens this instance's chain and records `server.started`.
   * @throws when no chain can be opened or written: the server does not start unaudited.
   */
  static async open(options: ServerAuditOptions): Promise<ServerAudit> {
    const opened = await openFreeChain(options.dir, 'server', options);
    const audit = new ServerAudit(opened.log, options.log);
    try {
      await opened.log.append('server.started', {
        version: SERVER_VERSION,
        host: hostname(),
        pid: process.pid,
        ...(opened.cutOff !== undefined ? { cut_off_line: opened.cutOff } : {}),
      });
    } catch (error) {
      audit.#stopHead();
      await opened.log.close();
      throw new Error(`the audit log ${opened.log.file} cannot be written: ${(error as Error).message}`, {
        cause: error,
      });
    }
    options.log.info(
      { event: 'audit.opened', file: opened.log.file, head: opened.log.head },
      `audit log: ${opened.log.file}`,
    );
    return audit;
  }

  get file(): string {
    return this.#log.file;
  }

  get chain(): string {
    return this.#log.chain;
  }

  /** Whether entries can be written now (after a failure it tries again, recording the loss). */
  writable(): Promise<boolean> {
    return this.#log.ensureWritable();
  }

  /**
   * Appends an entry. When it cannot be written, the entry goes to the server log at error level (never lost
   * silently) and the promise rejects.
   */
  record(event: string, fields: AuditFields): Promise<AuditEntry> {
    return appendOrReport(this.#log, this.#logger, event, fields).then(
      (entry) => {
        this.counts.written += 1;
        return entry;
      },
      (error: unknown) => {
        this.counts.failed += 1;
        throw error;
      },
    );
  }

  async close(): Promise<void> {
    this.#stopHead();
    await this.#log.append('server.stopped', {}).catch(() => undefined);
    await this.#log.close();
    logAuditHead(this.#log, this.#logger);
  }
}
