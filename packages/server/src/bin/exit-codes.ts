/**
 * How `vserver-local` ends: the one exit-code table of `@federa/common` (docs/cli.md, "Exit codes"), here as the
 * code of each reason.
 */
import { EXIT_CODES as TABLE, type ExitReason } from '@federa/common';

export { exitWith, type ExitReason } from '@federa/common';

/** The exit code of each reason. */
export const EXIT_CODES = Object.fromEntries(
  Object.entries(TABLE).map(([reason, { code }]) => [reason, code]),
) as { readonly [R in ExitReason]: (typeof TABLE)[R]['code'] };

/**
 * What `vserver-local` says of an error nothing else handled: `error: ` and its message, never its stack (no source
 * path or frame reaches whoever reads the output); the stack only when `FEDERA_DEBUG=1` is set.
 */
export function unexpectedErrorText(error: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const message = error instanceof Error ? error.message || error.name : String(error);
  const stack = env.FEDERA_DEBUG === '1' && error instanceof Error ? error.stack : undefined;
  return `error: ${message}${stack ? `\n${stack}` : ''}`;
}
