/**
 * The one table of exit codes of `vserver` and `vnode`, and the one function through which they exit.
 * Documented in docs/cli.md ("Exit codes"); a test checks every code is listed there.
 */
export const EXIT_CODES = {
  ok: { code: 0, meaning: 'done' },
  failure: { code: 1, meaning: 'an unexpected error (the message says what went wrong)' },
  usage: { code: 2, meaning: 'wrong command-line usage: unknown option, missing argument, bad value' },
  config: {
    code: 3,
    meaning: 'the configuration is missing or broken (the message names the key and the file)',
  },
  docker: { code: 4, meaning: 'Docker cannot be reached, or an image is not available' },
  state: {
    code: 5,
    meaning: 'the instance is not in a state that allows the command (already running, not running, exists)',
  },
  aborted: { code: 6, meaning: 'the user declined a confirmation or interrupted a prompt' },
  remote: { code: 7, meaning: 'the server refused a request or could not be reached' },
  timeout: { code: 8, meaning: 'waiting for a server or node to come online took too long' },
} as const;

export type ExitReason = keyof typeof EXIT_CODES;

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

export interface ExitSink {
  readonly stderr: { write(text: string): unknown };
  exit(code: number): never;
}

const processSink: ExitSink = { stderr: process.stderr, exit: (code) => process.exit(code) };

/**
 * Ends the process through the table: prints the message (if any) to stderr and exits with the reason's code.
 * `error` may be a reason or anything thrown.
 */
export function exitWith(what: ExitReason | unknown, message?: string, sink: ExitSink = processSink): never {
  const reason: ExitReason =
    typeof what === 'string' && what in EXIT_CODES ? (what as ExitReason) : reasonOf(what);
  const text =
    message ??
    (typeof what === 'string' && what in EXIT_CODES
      ? undefined
      : what instanceof Error
        ? what.message
        : String(what));
  if (text !== undefined && text !== '') sink.stderr.write(`${reason === 'ok' ? '' : 'error: '}${text}\n`);
  return sink.exit(EXIT_CODES[reason].code);
}
