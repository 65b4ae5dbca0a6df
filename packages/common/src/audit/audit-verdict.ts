/** The verdict `vserver-local audit verify` and `vnode audit verify` print (docs/audit.md, "Verifying"). */
import type { ChainReport } from './audit-verify.js';

/** Lines for people: one per chain, then the first problem with its file, line and reason. */
export function formatAuditVerdict(reports: readonly ChainReport[]): { ok: boolean; text: string } {
  if (reports.length === 0) return { ok: false, text: 'FAILED: no audit log files were found\n' };
  const lines: string[] = [];
  for (const r of reports) {
    const span = r.first && r.last ? `entries ${r.first.seq}-${r.last.seq}` : 'no entries';
    const files = `${r.files.length} file${r.files.length === 1 ? '' : 's'}`;
    if (!r.problem) {
      lines.push(
        `OK: chain '${r.chain}': ${r.entries} entries intact (${span}, ${files}); last hash ${r.last?.hash ?? '-'}`,
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
