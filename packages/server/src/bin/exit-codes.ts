/** The exit codes of `vserver-local`: one table, one way out. */
export const EXIT_CODES = {
  /** Done, or stopped by a signal after a clean shutdown. */
  ok: 0,
  /** An unexpected error (a bug, or a failure during shutdown). */
  failure: 1,
  /** The configuration is invalid: the message names the key and the file. Nothing was started. */
  config: 2,
  /** The command line is wrong (unknown command or option, bad value). */
  usage: 3,
  /** A service the server needs is unavailable at start: the database, or the listen address/port. */
  unavailable: 4,
  /** `audit verify`: an entry of the audit log was edited, removed or reordered, or a line is unreadable. */
  tampered: 5,
} as const;

export type ExitReason = keyof typeof EXIT_CODES;

/** Ends the process with the code of `reason`, after writing `message` (one line) to stderr. */
export function exitWith(reason: ExitReason, message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.exit(EXIT_CODES[reason]);
}
