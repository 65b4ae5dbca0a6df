import { Command, CommanderError, InvalidArgumentError } from 'commander';
import pino from 'pino';
import type { StandaloneStoreOptions, StoreHandle } from '../store/standalone.js';
import { SERVER_VERSION } from '../version.js';
import type { ExitReason } from './exit-codes.js';
import { StoreCommandError, reviewAlgorithm, submitAlgorithm, type StoreLogin } from './vstore-client.js';

/** Where the CLI writes and how it starts the store (tests replace them). */
export interface StoreCliIo {
  out(text: string): void;
  err(text: string): void;
  start(options: StandaloneStoreOptions): Promise<StoreHandle>;
  env: NodeJS.ProcessEnv;
}

const defaultIo: StoreCliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  start: async (options) => (await import('../store/standalone.js')).startStore(options),
  env: process.env,
};

const parsePort = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('expected a port number 0-65535');
  return Number(value);
};

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `URL#username`: a user of a trusted server who manages the store. */
const parseManager = (value: string): { server_url: string; username: string } => {
  const at = value.lastIndexOf('#');
  if (at <= 0 || at === value.length - 1) throw new InvalidArgumentError('expected SERVER_URL#username');
  return { server_url: value.slice(0, at), username: value.slice(at + 1) };
};

/** Runs `vstore` with `argv`; `start` resolves once the store stops (SIGINT/SIGTERM). */
export async function runStoreCli(argv: string[], io: StoreCliIo = defaultIo): Promise<ExitReason> {
  let outcome: ExitReason = 'ok';
  const program = new Command('vstore')
    .description('Run a Federa algorithm store in a process of its own, shared by the servers it trusts.')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  program
    .command('start')
    .description('start the store: its API under --path (vantage6 4.x store routes)')
    .option('--uri <uri>', 'database URI (sqlite:///store.sqlite, postgresql://…)', 'sqlite:///store.sqlite')
    .option('--ip <ip>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on', parsePort, 7602)
    .option('--path <path>', 'the API prefix', '/api')
    .option(
      '--trusted-server <url>',
      'a server whose users may use the store (its API URL, e.g. http://host:5000/api); repeatable',
      collect,
      [],
    )
    .option(
      '--manager <url#username>',
      'a store manager: a trusted server and a username there; repeatable',
      collect,
      [],
    )
    .option('--timeout-ms <ms>', 'how long to wait for a server to say who calls', (v) => Number(v), 5000)
    .option('--audit-dir <dir>', 'where the audit log is kept')
    .option('--data-dir <dir>', 'where relative SQLite paths live', process.cwd())
    .action(async (o: Record<string, unknown>) => {
      const log = pino({ level: 'info' });
      let managers;
      try {
        managers = (o.manager as string[]).map(parseManager);
      } catch (error) {
        io.err(`vstore: ${(error as Error).message}\n`);
        outcome = 'usage';
        return;
      }
      const handle = await io.start({
        uri: o.uri as string,
        dataDir: o.dataDir as string,
        ip: o.ip as string,
        port: o.port as number,
        path: o.path as string,
        trustedServers: o.trustedServer as string[],
        managers,
        timeoutMs: o.timeoutMs as number,
        ...(o.auditDir ? { auditDir: o.auditDir as string } : {}),
        log,
      });
      io.out(`algorithm store ${SERVER_VERSION} listening at ${handle.url}${o.path as string}\n`);
      await new Promise<void>((done) => {
        process.once('SIGINT', done);
        process.once('SIGTERM', done);
      });
      await handle.close();
    });
  const withLogin = (cmd: Command) =>
    cmd
      .requiredOption('--store <url>', "the store's API (e.g. https://srv.example.org/store/api)")
      .requiredOption('--server <url>', "your server's API (e.g. https://srv.example.org/api)")
      .requiredOption('--username <name>', 'your username there (the password is read from FEDERA_PASSWORD)');
  const loginOf = (o: Record<string, unknown>): StoreLogin => {
    const password = io.env.FEDERA_PASSWORD;
    if (!password) throw new StoreCommandError('set FEDERA_PASSWORD to your password');
    return { store: o.store as string, server: o.server as string, username: o.username as string, password };
  };
  const report = async (work: () => Promise<string>) => {
    try {
      io.out(`${await work()}\n`);
    } catch (error) {
      if (!(error instanceof StoreCommandError)) throw error;
      io.err(`vstore: ${error.message}\n`);
      outcome = 'failure';
    }
  };
  withLogin(
    program.command('submit <file>').description("submit an algorithm from its author's JSON file"),
  ).action((file: string, o: Record<string, unknown>) => report(() => submitAlgorithm(loginOf(o), file)));
  withLogin(
    program
      .command('review <algorithm-id>')
      .description('approve or reject your open review of an algorithm')
      .option('--approve', 'approve it')
      .option('--reject', 'reject it (needs --comment)')
      .option('--comment <text>', 'your comment'),
  ).action((id: string, o: Record<string, unknown>) =>
    report(async () => {
      if (Boolean(o.approve) === Boolean(o.reject))
        throw new StoreCommandError('give one of --approve or --reject');
      if (o.reject && !o.comment) throw new StoreCommandError('a rejection needs --comment');
      const decision = o.approve
        ? { approve: true as const, ...(o.comment ? { comment: o.comment as string } : {}) }
        : { approve: false as const, comment: o.comment as string };
      return reviewAlgorithm(loginOf(o), Number(id), decision);
    }),
  );
  program.command('version').action(() => io.out(`${SERVER_VERSION}\n`));
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 'ok' : 'usage';
    io.err(`vstore: ${(error as Error).message}\n`);
    return 'failure';
  }
  return outcome;
}
