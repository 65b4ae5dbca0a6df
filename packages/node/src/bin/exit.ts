/** How the node process ends: one table of exit codes, one function. */
export const EXIT_CODES = {
  ok: 0,
  error: 1,
  config: 2,
  wrongApiKey: 3,
  startup: 4,
} as const;

export type ExitReason = keyof typeof EXIT_CODES;

export function exitWith(reason: ExitReason, message?: string): never {
  if (message) process.stderr.write(`${message}\n`);
  process.exit(EXIT_CODES[reason]);
}
