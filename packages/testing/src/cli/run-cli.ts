/** Runs `vserver`/`vnode` in the test process and captures what a user would see. */
import { type Command, CommanderError } from 'commander';
import { EXIT_CODES, reasonOf } from '@federa/cli';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(build: () => Command, args: readonly string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const realOut = process.stdout.write.bind(process.stdout);
  const realErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => (
    out.push(String(chunk)),
    true
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (
    err.push(String(chunk)),
    true
  )) as typeof process.stderr.write;
  let code = 0;
  try {
    const program = build();
    program.exitOverride();
    for (const c of program.commands) c.exitOverride();
    program.configureOutput({ writeOut: (s) => out.push(s), writeErr: (s) => err.push(s) });
    await program.parseAsync([...args], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode === 0 ? 0 : EXIT_CODES.usage.code;
    else {
      code = EXIT_CODES[reasonOf(error)].code;
      err.push(`error: ${(error as Error).message}\n`);
    }
  } finally {
    process.stdout.write = realOut;
    process.stderr.write = realErr;
  }
  return { code, stdout: out.join(''), stderr: err.join('') };
}
