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
