/**
 * How `vserver` and `vnode` end: the one exit-code table of `@federa/common` (docs/cli.md, "Exit codes"), the
 * error that carries a reason, and what anything thrown maps to.
 */
import { EXIT_CODES, exitWith as exitThrough, type ExitReason, type ExitSink } from '@federa/common';

export { EXIT_CODES, exitReasonOf, type ExitReason, type ExitSink } from '@federa/common';

/** An error that ends the command with the exit code of its reason; the message is shown as is. */
export class CliError extends Error {
  readonly reason: ExitReason;
  constructor(reason: ExitReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.reason = reason;
  }
  get exitCode(): number {
    return EXIT_CODES[this.reason].code;
  }
}

/** Maps anything thrown to the reason it ends the command with. */
export function reasonOf(error: unknown): ExitReason {
  if (error instanceof CliError) return error.reason;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'ConfigError') return 'config';
  if (name === 'ExitPromptError' || name === 'AbortPromptError') return 'aborted';
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED' && String((error as { address?: unknown }).address ?? '').includes('docker'))
    return 'docker';
  return 'failure';
}

/**
 * Ends the process through the table: prints the message (if any) to stderr and exits with the reason's code.
 * `error` may be a reason or anything thrown.
 */
export function exitWith(what: ExitReason | unknown, message?: string, sink?: ExitSink): never {
  const reason: ExitReason =
    typeof what === 'string' && what in EXIT_CODES ? (what as ExitReason) : reasonOf(what);
  const text =
    message ??
    (typeof what === 'string' && what in EXIT_CODES
      ? undefined
      : what instanceof Error
        ? what.message
        : String(what));
  const line = text !== undefined && text !== '' ? `${reason === 'ok' ? '' : 'error: '}${text}` : undefined;
  return exitThrough(reason, line, sink);
}
