/**
 * The head of a chain in the daemon's own log (docs/audit.md, "Verifying"):
 * `audit.head` with the chain, seq and hash of its last entry, every hour while entries are written and when the
 * log closes, for `audit verify --head` to find entries cut off the end later.
 */
import type { AuditLog } from './audit-log.js';

/** The part of a pino logger this needs. */
export interface HeadLogger {
  info(fields: Record<string, unknown>, message: string): void;
}

export const AUDIT_HEAD_EVERY_MS = 60 * 60 * 1000;

/** Logs the chain's head now. */
export function logAuditHead(log: AuditLog, logger: HeadLogger): void {
  const { seq, hash } = log.head;
  logger.info(
    { event: 'audit.head', chain: log.chain, file: log.file, seq, hash },
    `audit log head: chain '${log.chain}' entry ${seq}, hash ${hash} (check later: audit verify --head ${hash})`,
  );
}

/** Logs the head every `everyMs` when entries were added since; the function returned stops it. */
export function watchAuditHead(
  log: AuditLog,
  logger: HeadLogger,
  everyMs: number = AUDIT_HEAD_EVERY_MS,
): () => void {
  let logged = log.head.seq;
  const timer = setInterval(() => {
    if (log.head.seq === logged) return;
    logged = log.head.seq;
    logAuditHead(log, logger);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
