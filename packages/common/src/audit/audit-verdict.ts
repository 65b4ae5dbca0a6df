/** The verdict `vserver-local audit verify` and `vnode audit verify` print (docs/audit.md, "Verifying"). */
import { isAuditHash, type ChainReport } from './audit-verify.js';
import { AuditPathError, verifyAuditPath } from './audit-verify-path.js';

/** Lines for people: one per chain, then the first problem with its file, line and reason. */
export function formatAuditVerdict(reports: readonly ChainReport[]): { ok: boolean; text: string } {
  if (reports.length === 0) return { ok: false, text: 'FAILED: no audit log files were found\n' };
  const lines: string[] = [];
  for (const r of reports) {
    const span = r.first && r.last ? `entries ${r.first.seq}-${r.last.seq}` : 'no entries';
    const files = `${r.files.length} file${r.files.length === 1 ? '' : 's'}`;
    if (!r.problem) {
      lines.push(
        `${r.unkeyed > 0 && r.unkeyed === r.entries ? 'OK (UNKEYED)' : 'OK'}: chain '${r.chain}': ${r.entries} entries intact (${span}, ${files}${r.keyId && r.unkeyed < r.entries ? `, key ${r.keyId}` : ''}); last hash ${r.last?.hash ?? '-'}${
          r.headSeq !== undefined ? `; the head given is entry ${r.headSeq}` : ''
        }`,
      );
      if (r.unkeyed > 0 && r.unkeyed === r.entries)
        lines.push(
          '  this chain has no key: anyone who could write its files could have rewritten it and re-hashed it undetected',
        );
      else if (r.unkeyed > 0)
        lines.push(
          `  its first ${r.unkeyed} entries were written before the chain had a key; the keyed entries after them hold them`,
        );
      continue;
    }
    const p = r.problem;
    lines.push(
      `FAILED: chain '${r.chain}': ${p.kind} at ${p.file}${p.line > 0 ? ` line ${p.line}` : ''}`,
      `  ${p.reason}`,
      `  ${r.entries} entries before it are intact${r.last ? ` (up to entry ${r.last.seq})` : ''}`,
    );
  }
  return { ok: reports.every((r) => !r.problem), text: `${lines.join('\n')}\n` };
}

/**
 * What `audit verify` ends with: the exit reason and the text (stdout when `ok`, else stderr; for `input` and
 * `usage` one error message).
 */
export interface AuditVerifyOutcome {
  readonly reason: 'ok' | 'tampered' | 'input' | 'usage';
  readonly text: string;
}

/**
 * `audit verify` of `path` for the three commands that have it: the verdict, or in plain words why the path or
 * the head cannot be checked (never a stack trace).
 */
export async function auditVerifyOutcome(
  path: string,
  head?: string,
  keyFile?: string,
): Promise<AuditVerifyOutcome> {
  if (head !== undefined && !isAuditHash(head))
    return { reason: 'usage', text: `--head must be an entry hash (64 hex digits), not '${head}'\n` };
  try {
    const { ok, text } = formatAuditVerdict(
      await verifyAuditPath(path, {
        ...(head !== undefined ? { head } : {}),
        ...(keyFile !== undefined ? { keyFile } : {}),
      }),
    );
    return { reason: ok ? 'ok' : 'tampered', text };
  } catch (error) {
    if (error instanceof AuditPathError) return { reason: 'input', text: `${error.message}\n` };
    throw error;
  }
}
