/** The `vnode` commands that read what a node kept: audit verify, logs. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { auditVerifyOutcome, keptRunLogPath } from '@federa/common';
import { checkNodeConfig } from '../config/validate.js';
import { CliError } from '../exit-codes.js';
import { examples } from '../util/command.js';
import { resolveRef, withContext, type Ctx } from './command-context.js';
import { nodeAuditDir, nodeLayout } from './start.js';

/** `vnode audit verify`: check the node's audit log. */
export function addAuditCommands(program: Command): void {
  const audit = program.command('audit').description("The node's audit log (docs/audit.md)");
  examples(
    withContext(
      audit
        .command('verify')
        .description(
          "Check that no entry of the node's audit log was edited, removed or reordered (its folder in the node's data folder, or --file)",
        ),
    )
      .option('--file <path>', 'an audit folder, or one file of it')
      .option(
        '--head <hash>',
        'the last hash recorded earlier (printed by audit verify, logged as audit.head): the log must still hold it',
      )
      .option('--key-file <path>', "the chain's key (default: <audit folder>.key, beside the folder)")
      .action(async (o: Ctx & { file?: string; head?: string; keyFile?: string }) => {
        let path = o.file;
        if (path === undefined) {
          const ref = await resolveRef(o);
          path = nodeAuditDir(
            nodeLayout(ref, checkNodeConfig(ref.file, o.environment, ref.name, process.env)),
          );
        }
        const { reason, text } = await auditVerifyOutcome(path, o.head, o.keyFile);
        if (reason !== 'ok') throw new CliError(reason, text.trimEnd());
        process.stdout.write(text);
      }),
    ['vnode audit verify -n hospital-a', 'vnode audit verify --file ./audit/node.000000000001.jsonl'],
  );
}

/** `vnode logs <run>`: a run log the node kept. */
export function addLogsCommand(program: Command): void {
  examples(
    withContext(
      program
        .command('logs <run>')
        .description(
          'Print the log of a run this node kept (share_logs: false; docs/run-logs.md): <run> is the result id',
        ),
    ).action(async (run: string, o: Ctx) => {
      if (!/^[1-9][0-9]{0,15}$/.test(run))
        throw new CliError('usage', `<run> must be a result id, not '${run}'`);
      const ref = await resolveRef(o);
      const layout = nodeLayout(ref, checkNodeConfig(ref.file, o.environment, ref.name, process.env));
      const file = join(layout.logDir, keptRunLogPath(ref.name, Number(run)));
      const text = await readFile(file, 'utf8').catch((e: unknown) => {
        throw keptLogReadError(e, file, ref.name, run);
      });
      process.stdout.write(text);
    }),
    ['vnode logs 42 -n hospital-a'],
  );
}

/**
 * Why `vnode logs` could not read a kept run log (docs/run-logs.md), in words a node admin can act on. The node in
 * Docker writes it as root with mode 0600 in the host's log folder, so a user who is not root cannot read it there.
 */
export function keptLogReadError(error: unknown, file: string, node: string, run: string): CliError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EACCES' || code === 'EPERM')
    return new CliError(
      'failure',
      `this user may not read the log of run ${run} (${file}, permission denied): node ${node} in Docker writes its runs' logs as root, readable by root only; read it with: sudo cat '${file}'`,
      { cause: error },
    );
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return new CliError(
      'failure',
      `node ${node} keeps no log of run ${run} (looked in ${file}); a node with share_logs: true sends its runs' logs to the server`,
      { cause: error },
    );
  return new CliError(
    'failure',
    `the log of run ${run} could not be read from ${file} (${String(code ?? error)})`,
    { cause: error },
  );
}
