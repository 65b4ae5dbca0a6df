/**
 * `audit verify` of a path (docs/audit.md, "Verifying"): a folder (every chain in it, each from entry 1) or one
 * file. A path that is missing, cannot be read or holds no audit log is an {@link AuditPathError} in plain words,
 * not a verdict on the log; a head recorded earlier (`--head`) must still be in the chain.
 */
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { chainFiles, parseFileName } from './audit-files.js';
import { auditKeyPath, readAuditKey, type AuditKey } from './audit-key.js';
import { verifyChain, type ChainReport } from './audit-verify.js';

export type AuditPathProblem = 'not-found' | 'unreadable' | 'not-audit-log';

/** The path given to `audit verify` cannot be checked at all; the message says why, for people. */
export class AuditPathError extends Error {
  readonly problem: AuditPathProblem;
  constructor(problem: AuditPathProblem, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditPathError';
    this.problem = problem;
  }
}

/** The error of a file-system call on `path`, in plain words. */
function pathError(path: string, error: unknown): AuditPathError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new AuditPathError('not-found', `there is no audit log at ${path}: no such file or folder`, {
      cause: error,
    });
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : String(code ?? 'unknown error');
  return new AuditPathError('unreadable', `the audit log at ${path} cannot be read: ${why}`, {
    cause: error,
  });
}

const looksLikeEntry = (line: string): boolean => {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && 'seq' in v && 'hash' in v && 'prev' in v;
  } catch {
    return false;
  }
};

/** A one-file report whose very first line is not an entry: is the file an audit log at all? */
async function refuseNonLog(path: string, report: ChainReport): Promise<void> {
  if (report.entries > 0 || report.problem?.kind !== 'malformed' || report.problem.line !== 1) return;
  const lines = (await readFile(path, 'utf8').catch(() => '')).split('\n');
  if (!lines.some(looksLikeEntry))
    throw new AuditPathError(
      'not-audit-log',
      `${path} is not an audit log: none of its lines is an audit entry (docs/audit.md, "The format")`,
    );
}

/** `--head` not found: every chain otherwise intact ends before it (or the hash is of another log). */
function checkHead(reports: ChainReport[], head: string): ChainReport[] {
  if (reports.some((r) => r.headSeq !== undefined)) return reports;
  return reports.map((r) =>
    r.problem
      ? r
      : {
          ...r,
          problem: {
            file: r.files[r.files.length - 1] ?? r.chain,
            line: 0,
            kind: 'cut-off',
            reason:
              `the log ends ${r.last ? `at entry ${r.last.seq}` : 'with no entries'} and holds no entry with ` +
              `hash ${head} (the head recorded earlier): entries at its end were removed, or the hash is of ` +
              'another log',
          },
        },
  );
}

/**
 * Checks a folder (every chain in it, each from entry 1) or one file (`partial` unless it is the first file of its
 * chain). With `head`, a chain must hold the entry of that hash.
 * @throws AuditPathError when the path is missing, cannot be read or is not an audit log.
 */
export async function verifyAuditPath(
  path: string,
  options: { readonly head?: string; readonly keyFile?: string } = {},
): Promise<ChainReport[]> {
  const info = await stat(path).catch((error: unknown) => {
    throw pathError(path, error);
  });
  // The key beside the audit folder (`<folder>.key`), unless another file is named.
  const keyFile = options.keyFile ?? auditKeyPath(info.isDirectory() ? path : dirname(path));
  let key: AuditKey | undefined;
  try {
    key = await readAuditKey(keyFile);
  } catch (error) {
    throw new AuditPathError(
      'unreadable',
      `the audit key ${keyFile} cannot be read: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (options.keyFile !== undefined && !key)
    throw new AuditPathError('not-found', `there is no audit key at ${keyFile}: no such file`);
  const head = { ...(options.head !== undefined ? { head: options.head } : {}), key };
  let reports: ChainReport[];
  if (info.isDirectory()) {
    await readdir(path).catch((error: unknown) => {
      throw pathError(path, error);
    });
    const chains = await chainFiles(path);
    if (chains.size === 0)
      throw new AuditPathError(
        'not-audit-log',
        `${path} is not an audit log folder: it holds no audit log files (<chain>.jsonl)`,
      );
    reports = await Promise.all(
      [...chains.entries()].map(([chain, files]) => verifyChain(chain, files, head)),
    );
  } else {
    const fh = await open(path, 'r').catch((error: unknown) => {
      throw pathError(path, error);
    });
    await fh.close();
    const parsed = parseFileName(basename(path));
    const chain = parsed?.chain ?? basename(path);
    const siblings = parsed ? ((await chainFiles(dirname(path))).get(parsed.chain) ?? []) : [];
    const isFirst = siblings[0] !== undefined && basename(siblings[0]) === basename(path);
    const report = await verifyChain(chain, [path], { partial: !isFirst, ...head });
    await refuseNonLog(path, report);
    reports = [report];
  }
  return options.head !== undefined ? checkHead(reports, options.head) : reports;
}
