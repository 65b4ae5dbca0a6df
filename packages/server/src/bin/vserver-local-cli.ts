import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, ENVIRONMENTS } from '@federa/common';
import { FixtureError, runImport, type ImportReport, type RunImportOptions } from '../import/index.js';
import { startServer, type ServerHandle, type StartServerOptions } from '../server.js';
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
  start: startServer,
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
  return `${lines.join('\n')}\n`;
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
