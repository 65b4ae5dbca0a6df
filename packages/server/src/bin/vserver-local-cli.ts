import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { resolve } from 'node:path';
import { auditVerifyOutcome, ConfigError, ENVIRONMENTS } from '@federa/common';
import { serverDataDir } from '../config/data-dir.js';
import { loadServerConfig } from '../config/load.js';
import { FixtureError, runImport, type ImportReport, type RunImportOptions } from '../import/index.js';
import type { ServerHandle, StartServerOptions } from '../server.js';
import { SERVER_VERSION } from '../version.js';
import type { ExitReason } from './exit-codes.js';

/** Where the CLI writes and how it starts the server (tests replace them). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  start(options: StartServerOptions): Promise<ServerHandle>;
  import?(options: RunImportOptions): Promise<{ report: ImportReport }>;
}

const defaultIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  // Loaded when used: `import` and `version` start faster without the web server's modules.
  start: async (options) => (await import('../server.js')).startServer(options),
  import: runImport,
};

/** The import's summary: one line per kind, what was created and what was there already. */
export function formatImportReport(report: ImportReport): string {
  const kinds = ['organizations', 'users', 'roles', 'collaborations', 'nodes', 'tasks'] as const;
  const lines = kinds.map((kind) => {
    const made = report.created[kind];
    const kept = kind === 'roles' ? [] : report.skipped[kind];
    return `${kind}: ${made.length} created${made.length ? ` (${made.join(', ')})` : ''}${kept.length ? `, ${kept.length} already there (${kept.join(', ')})` : ''}`;
  });
  const keys = report.nodeKeys.map(
    (k) => `  ${k.node} (${k.organization} in ${k.collaboration}): ${k.api_key}`,
  );
  return `${lines.join('\n')}\n${
    keys.length
      ? `\nAPI keys of the new nodes (shown only now, they are stored hashed; give each to the admin of that node,\nwho puts it in the node's configuration: vnode new --api-key <key>, or vnode set api_key=<key>):\n${keys.join('\n')}\n`
      : ''
  }`;
}

/** The audit folder of a configuration: `audit.directory`, relative to the data folder (docs/audit.md). */
function auditDirOf(configFile: string, environment: string): string {
  const loaded = loadServerConfig(configFile, environment, process.env);
  return resolve(serverDataDir(loaded, process.env), loaded.config.audit.directory ?? 'audit');
}

const parsePort = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('expected a port number 0-65535');
  return Number(value);
};

/** A start failure's exit reason: configuration, an unavailable service (errors with a system or driver code), or a bug. */
export function startFailureReason(error: unknown): ExitReason {
  if (error instanceof ConfigError) return 'config';
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code !== '' ? 'unavailable' : 'failure';
}

/** Runs `vserver-local` with `argv` (without the node and script paths) and returns the exit reason. */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<ExitReason> {
  let outcome: ExitReason = 'ok';
  const program = new Command('vserver-local')
    .description('Run a Federa server (wire-compatible with the vantage6 3.x server) in this process.')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError('(run vserver-local --help for the commands and options)');

  program
    .command('start')
    .description('start the server: the API, /apidocs and socket.io on one port')
    .requiredOption('-c, --config <file>', 'the server configuration file (YAML)')
    .addOption(
      new Option('-e, --environment <environment>', 'the environment of the file to run')
        .choices([...ENVIRONMENTS])
        .default('prod'),
    )
    .option('--ip <address>', 'listen address (overrides ip of the configuration)')
    .option('-p, --port <port>', 'listen port (overrides port of the configuration)', parsePort)
    .action(async (opts: { config: string; environment: string; ip?: string; port?: number }) => {
      let handle: ServerHandle;
      try {
        handle = await io.start({
          configFile: opts.config,
          environment: opts.environment,
          ...(opts.ip !== undefined ? { ip: opts.ip } : {}),
          ...(opts.port !== undefined ? { port: opts.port } : {}),
          handleSignals: true,
        });
      } catch (error) {
        outcome = startFailureReason(error);
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        io.err(
          outcome === 'config'
            ? `error: invalid configuration: ${message}\n`
            : `error: the server could not start: ${message}\n`,
        );
        return;
      }
      await handle.closed;
    });

  program
    .command('import')
    .description(
      'load organizations, users, collaborations, nodes and example tasks from a fixture file (YAML)',
    )
    .argument('<file>', 'the fixture file')
    .requiredOption('-c, --config <file>', 'the server configuration file (YAML)')
    .addOption(
      new Option('-e, --environment <environment>', 'the environment of the file whose database is used')
        .choices([...ENVIRONMENTS])
        .default('prod'),
    )
    .option('--drop-all', 'accepted for vantage6 compatibility; does nothing (as in vantage6 3.x)')
    .addHelpText(
      'after',
      `
The file format, with a complete example: docs/import-format.md. Unknown keys are refused; errors name the file
and line. Users get only the roles listed under their 'roles'. The API key of each node created is printed once.
Running it again adds only what is missing (matched by name). Examples:
  vserver-local import -c server.yaml fixtures.yaml
  vserver-local import -c /mnt/config.yaml -e prod /mnt/import.yaml   (what vserver import runs in a container)`,
    )
    .action(async (file: string, opts: { config: string; environment: string; dropAll?: boolean }) => {
      if (opts.dropAll) io.err('warning: --drop-all has no effect (as in vantage6 3.x)\n');
      try {
        const run = io.import ?? runImport;
        const { report } = await run({
          configFile: opts.config,
          environment: opts.environment,
          fixtureFile: file,
          // `vserver import` runs this in a container: name the admin's own file in messages.
          ...(process.env.FEDERA_IMPORT_SOURCE ? { fixtureName: process.env.FEDERA_IMPORT_SOURCE } : {}),
        });
        io.out(formatImportReport(report));
      } catch (error) {
        if (error instanceof ConfigError || error instanceof FixtureError) {
          outcome = 'config';
          io.err(
            `error: ${error instanceof FixtureError ? 'invalid fixture' : 'invalid configuration'}: ${error.message}\n`,
          );
          return;
        }
        outcome = startFailureReason(error);
        io.err(`error: the import failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    });

  const audit = program.command('audit').description("the server's audit log (docs/audit.md)");
  audit
    .command('verify')
    .description(
      'check that no entry of the audit log was edited, removed or reordered (every chain of the folder, or one file)',
    )
    .option(
      '-c, --config <file>',
      'the server configuration file: checks the audit folder of its data folder',
    )
    .addOption(
      new Option('-e, --environment <environment>', 'the environment of the configuration file')
        .choices([...ENVIRONMENTS])
        .default('prod'),
    )
    .option('--file <path>', 'an audit folder, or one file of it (checked from its first entry)')
    .option(
      '--head <hash>',
      'the last hash recorded earlier (printed by audit verify, logged as audit.head): the log must still hold it',
    )
    .action(async (opts: { config?: string; environment: string; file?: string; head?: string }) => {
      try {
        const path = opts.file ?? (opts.config ? auditDirOf(opts.config, opts.environment) : undefined);
        if (path === undefined) {
          outcome = 'usage';
          io.err('error: give the configuration file (-c) or the audit folder or file (--file)\n');
          return;
        }
        const { reason, text } = await auditVerifyOutcome(path, opts.head);
        if (reason === 'ok') io.out(text);
        else io.err(reason === 'tampered' ? text : `error: ${text}`);
        outcome = reason;
      } catch (error) {
        outcome = error instanceof ConfigError ? 'config' : 'failure';
        io.err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    });

  program
    .command('version')
    .description('print the server version')
    .action(() => io.out(`${SERVER_VERSION}\n`));

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 'ok';
      return 'usage';
    }
    throw error;
  }
  return outcome;
}
