// Appending an entry where a failed write must never go unnoticed (docs/audit.md, "For server admins: what the server records").
import type { AuditEntry, AuditFields } from './audit-entry.js';
import type { AuditLog } from './audit-log.js';

/** What appendOrReport needs of a logger: the server's (Fastify) and the node's (pino) both fit. */
export interface AuditErrorLogger {
  error(fields: object, message: string): void;
}

/**
 * Appends an entry. When it cannot be written, the entry goes to the process log at error level (never lost
 * silently) and the promise rejects, so the caller can refuse what it was about to do.
 */
export async function appendOrReport(
  log: AuditLog,
  logger: AuditErrorLogger,
  event: string,
  fields: AuditFields,
): Promise<AuditEntry> {
  try {
    return await log.append(event, fields);
  } catch (error) {
    logger.error(
      {
        event: 'audit.write_failed',
        audit_event: event,
        audit_fields: fields,
        err: { message: (error as Error).message },
      },
      `the audit log ${log.file} could not be written; the entry is in this log line`,
    );
    throw error;
  }
}
