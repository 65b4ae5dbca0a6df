/** Shared pieces of the `vserver` and `vnode` command lines. */
import type { Command } from 'commander';
import { CommanderError, Option } from 'commander';
import { CliError, exitWith } from '../exit-codes.js';
import type { InstanceRef } from '../config/store.js';
import type { Scope } from '../paths.js';

export interface ScopeFlags {
  user?: boolean;
  system?: boolean;
}

export const addScopeOptions = (cmd: Command, defaultScope: Scope): Command =>
  cmd
    .addOption(
      new Option('--user', `use the user's folders${defaultScope === 'user' ? ' (default)' : ''}`).conflicts(
        'system',
      ),
    )
    .addOption(
      new Option('--system', `use the system folders${defaultScope === 'system' ? ' (default)' : ''}`),
    );

export const scopeOf = (flags: ScopeFlags, defaultScope: Scope): Scope =>
  flags.system ? 'system' : flags.user ? 'user' : defaultScope;

/** Adds an "Examples:" section to a command's --help. */
export const examples = (cmd: Command, lines: readonly string[]): Command =>
  cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);

/** Interactive choice among several configurations (used when -n is not given). */
export const pickInstance = async (choices: InstanceRef[]): Promise<InstanceRef> => {
  if (process.stdin.isTTY !== true) {
    throw new CliError(
      'usage',
      `several configurations exist (${choices.map((c) => c.name).join(', ')}); choose one with -n/--name`,
    );
  }
  const { select } = await import('@inquirer/prompts');
  return select({
    message: 'Which configuration?',
    choices: choices.map((c) => ({ name: `${c.name} (${c.scope})`, value: c })),
  });
};

/** Prints rows as an aligned table. */
export function table(
  rows: readonly (readonly string[])[],
  out: { write(s: string): unknown } = process.stdout,
): void {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  for (const row of rows)
    out.write(
      `${row
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
}

/** Parses argv and runs; every outcome leaves through the exit-code table. */
export async function runProgram(program: Command, argv: readonly string[]): Promise<never> {
  program.exitOverride();
  program.configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const sub of program.commands) sub.exitOverride();
  try {
    await program.parseAsync([...argv]);
    return exitWith('ok');
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      ) {
        return exitWith('ok');
      }
      // commander printed the message already
      return exitWith(error.exitCode === 0 ? 'ok' : 'usage');
    }
    return exitWith(error);
  }
}
