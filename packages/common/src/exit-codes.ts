/**
 * The one table of exit codes of every Federa program: the commands `vserver` and `vnode` and the daemons
 * `vserver-local` and `vnode-local`, and the one function through which they exit. A code means the same in
 * each, so `vserver import` can pass on the code of the `vserver-local import` it ran. Documented in docs/cli.md
 * ("Exit codes"); a test checks every code is listed there.
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
  remote: {
    code: 7,
    meaning: 'the server refused a request or could not be reached (a node whose API key is refused)',
  },
  timeout: { code: 8, meaning: 'waiting for a server or node to come online took too long' },
  unavailable: {
    code: 9,
    meaning:
      'a daemon could not start: something it needs is unavailable or refuses it (the database, the listen ' +
      'address, the container engine, the proxy port, the collaboration)',
  },
  tampered: {
    code: 10,
    meaning:
      '`audit verify`: an entry of the audit log was edited, removed or reordered, or a line is unreadable; ' +
      'with `--head`, the log ends before that entry',
  },
  input: {
    code: 11,
    meaning:
      'a file or folder the command was given does not exist, cannot be read, or is not what the command reads ' +
      '(`audit verify`: not an audit log)',
  },
} as const;

export type ExitReason = keyof typeof EXIT_CODES;

/** The reason an exit code stands for, or `undefined` for a code outside the table (e.g. a signal's 137). */
export function exitReasonOf(code: number): ExitReason | undefined {
  return (Object.keys(EXIT_CODES) as ExitReason[]).find((reason) => EXIT_CODES[reason].code === code);
}

/** Where an exit goes: the process, or a test's recorder. */
export interface ExitSink {
  readonly stderr: { write(text: string): unknown };
  exit(code: number): never;
}

const processSink: ExitSink = { stderr: process.stderr, exit: (code) => process.exit(code) };

/** Ends the process with the code of `reason`, after writing `message` (if any, one line) to stderr. */
export function exitWith(reason: ExitReason, message?: string, sink: ExitSink = processSink): never {
  if (message !== undefined && message !== '') sink.stderr.write(`${message}\n`);
  return sink.exit(EXIT_CODES[reason].code);
}
