/** The `vserver` command line: managing servers that run in Docker. */
import { Command } from 'commander';
import { sourceCheckout } from '../util/source.js';
import { selectInstance } from '../config/store.js';
import { connectDocker } from '../docker/engine.js';
import { CliError } from '../exit-codes.js';
import { defaultAsker } from '../util/asker.js';
import { addScopeOptions, examples, pickInstance, scopeOf, table, type ScopeFlags } from '../util/command.js';
import { Progress } from '../util/progress.js';
import { CLI_VERSION } from '../version.js';
import { newServerConfig } from './new.js';
import { listServers, serverFiles, serverStatus, serverVersion, stopServers } from './commands.js';
import { importIntoServer } from './import.js';
import { attachLogs, parseTail, serverHostDataDir, startServer } from './start.js';
import { join } from 'node:path';
import { auditVerifyOutcome } from '@federa/common';
import { CONTAINER_PORT, LABELS, serverContainerName } from './naming.js';
import { parseAssignment, setKeys } from '../config/set.js';
import { checkServerConfig } from '../config/validate.js';

interface Ctx extends ScopeFlags {
  name?: string;
  config?: string;
  environment: string;
}

const withContext = (cmd: Command): Command =>
  addScopeOptions(
    cmd
      .option('-n, --name <name>', 'name of the server configuration')
      .option('-c, --config <file>', 'path of a configuration file (the name is its stem)')
      .option('-e, --environment <env>', 'environment of the configuration file', 'prod'),
    'system',
  );

const resolveRef = (o: Ctx) =>
  selectInstance(
    'server',
    {
      scope: scopeOf(o, 'system'),
      ...(o.name ? { name: o.name } : {}),
      ...(o.config ? { config: o.config } : {}),
    },
    pickInstance,
  );

export function buildServerProgram(): Command {
  const program = new Command('vserver')
    .description('Create, start and manage Federa servers that run in Docker.')
    .version(CLI_VERSION, '--cli-version', "print the CLI's version");

  examples(
    addScopeOptions(
      program
        .command('new')
        .description('Create a server configuration (a wizard; every answer can be given as a flag)')
        .option('-n, --name <name>', 'configuration name (letters, digits, _ . -)')
        .option('-e, --environment <env>', 'environment to write: application, prod, acc, test, dev')
        .option('--description <text>', 'free text')
        .option('--ip <address>', 'address the server listens on (default 0.0.0.0)')
        .option('--port <port>', 'port on this host (default 5000)')
        .option('--api-path <path>', 'API path (default /api)')
        .option('--db-uri <uri>', 'database URI (default sqlite:///default.sqlite, in the data folder)')
        .option('--allow-drop-all', 'allow dropping all tables (tests)')
        .option('--jwt-secret <secret>', 'secret for access tokens (default: a generated one)')
        .option('--root-email <email>', 'e-mail address of the root user (required)')
        .option('--root-username <name>', 'username of the root user (default root)')
        .option('--root-password <password>', 'password of the root user (default: generated at first start)')
        .option('--log-level <level>', 'DEBUG, INFO, WARNING, ERROR or CRITICAL (default INFO)')
        .option('--image <image>', 'server image to start (default federa/server:<CLI major version>)')
        .option(
          '--vpn-host <address>',
          "the address nodes' VPN clients connect to (default: no VPN; docs/vpn.md)",
        )
        .option('--vpn-port <port>', 'VPN port (default 1194, udp)')
        .option('--vpn-subnet <cidr>', 'VPN subnet (default 10.76.0.0/16)')
        .option('-y, --yes', 'do not ask: take defaults for everything not given'),
      'system',
    ).action(async (o: Record<string, string | boolean | undefined> & ScopeFlags) => {
      const result = await newServerConfig(
        {
          scope: scopeOf(o, 'system'),
          ...(Object.fromEntries(
            Object.entries(o).filter(([k, v]) => v !== undefined && !['user', 'system', 'yes'].includes(k)),
          ) as Record<string, string>),
          ...(o.allowDropAll !== undefined ? { allowDropAll: Boolean(o.allowDropAll) } : {}),
        },
        defaultAsker(o.yes === true),
      );
      process.stdout.write(
        `Wrote environment '${result.environment}' of ${result.file}\nStart it with: vserver start -n ${result.name}${scopeOf(o, 'system') === 'user' ? ' --user' : ''}\n`,
      );
    }),
    [
      'vserver new',
      'vserver new --user -n demo --root-email admin@example.org --yes',
      'vserver new -n demo -e prod --port 7601 --db-uri postgresql://federa@db/federa --root-email a@b.org --yes',
      'vserver new -n demo --root-email a@b.org --vpn-host vpn.example.org --yes',
    ],
  );

  examples(
    withContext(program.command('start').description('Start a server in Docker'))
      .option('--ip <address>', 'host address to publish the port on (default: config ip)')
      .option('-p, --port <port>', 'host port (default: config port, else 5000)')
      .option('-i, --image <image>', 'server image (default: config image, else federa/server:<CLI major>)')
      .option('--attach', 'follow the logs after starting (Ctrl-C stops following, not the server)')
      .option('--keep', 'keep the container after it stops (default: removed)')
      .option(
        '--develop [source]',
        'mount a built Federa checkout over the application (default: the checkout of this CLI)',
      )
      .option('--mount-src <source>', 'same as --develop <source>')
      .option('--wait <seconds>', 'seconds to wait for the server to answer (0: do not wait)', '60')
      .action(
        async (
          o: Ctx & {
            ip?: string;
            port?: string;
            image?: string;
            attach?: boolean;
            keep?: boolean;
            develop?: string | true;
            mountSrc?: string;
            wait: string;
          },
        ) => {
          const ref = await resolveRef(o);
          await startServer(
            ref,
            {
              environment: o.environment,
              ...(o.ip ? { ip: o.ip } : {}),
              ...(o.port ? { port: o.port } : {}),
              ...(o.image ? { image: o.image } : {}),
              ...((o.develop ?? o.mountSrc) ? { develop: sourceCheckout(o.develop ?? o.mountSrc) } : {}),
              attach: o.attach === true,
              keep: o.keep === true,
              wait: Number(o.wait),
            },
            new Progress(),
          );
        },
      ),
    [
      'vserver start -n demo',
      'vserver start --user -n demo -p 7601 --attach',
      'vserver start -n demo --image federa/server:0.1.0',
    ],
  );

  examples(
    addScopeOptions(
      program
        .command('stop')
        .description('Stop a running server (and remove its network)')
        .option('-n, --name <name>', 'name of the server configuration')
        .option('--all', 'stop every running server'),
      'system',
    ).action(async (o: ScopeFlags & { name?: string; all?: boolean }) => {
      const target = o.all
        ? ('all' as const)
        : {
            name: o.name ?? (await resolveRef({ ...o, environment: 'prod' })).name,
            scope: scopeOf(o, 'system'),
          };
      const stopped = await stopServers(target);
      process.stdout.write(stopped.length ? `Stopped ${stopped.join(', ')}\n` : 'No server was running\n');
    }),
    ['vserver stop -n demo', 'vserver stop --user -n demo', 'vserver stop --all'],
  );

  examples(
    program
      .command('list')
      .description('List server configurations (user and system) and whether they run')
      .action(async () => {
        const rows = await listServers();
        table([
          ['NAME', 'SCOPE', 'STATUS', 'ENVIRONMENTS', 'FILE'],
          ...rows.map((r) => [r.name, r.scope, r.status, r.environments.join(','), r.file]),
        ]);
      }),
    ['vserver list'],
  );

  examples(
    program
      .command('status')
      .description(
        'Whether each server runs and, when it does, the addresses of its web UI, API and API docs',
      )
      .action(async () => {
        for (const line of await serverStatus()) process.stdout.write(`${line}\n`);
      }),
    ['vserver status'],
  );

  examples(
    addScopeOptions(
      program
        .command('attach')
        .description('Follow the logs of a running server, as readable lines (Ctrl-C to stop following)')
        .option('-n, --name <name>', 'name of the server configuration')
        .option('--json', 'the raw JSON lines the server writes')
        .option('--tail <lines>', 'start with only the last N lines of the history')
        .option('--no-follow', 'print the history and stop'),
      'system',
    ).action(async (o: ScopeFlags & { name?: string; json?: boolean; tail?: string; follow: boolean }) => {
      const name = o.name ?? (await resolveRef({ ...o, environment: 'prod' })).name;
      const tail = parseTail(o.tail);
      const docker = await connectDocker();
      const container = serverContainerName(name, scopeOf(o, 'system'));
      const info = await docker.containerInfo(container);
      if (!info?.running) throw new CliError('state', `the server '${name}' is not running`);
      // The address users and nodes must use: the published host port, not the container's own 5000.
      const ip = info.labels[LABELS.hostIp] ?? '0.0.0.0';
      const host = ip === '0.0.0.0' || ip === '::' ? '127.0.0.1' : ip;
      process.stderr.write(
        `Server '${name}': API at http://${host}:${info.labels[LABELS.hostPort] ?? '?'}${info.labels[LABELS.apiPath] ?? '/api'} ` +
          `(from this host; nodes in Docker on this host: http://host.docker.internal:${info.labels[LABELS.hostPort] ?? '?'}). ` +
          `The log's port ${CONTAINER_PORT} is the container's own.\n`,
      );
      await attachLogs(docker, container, {
        ...(o.json ? { json: true } : {}),
        ...(tail !== undefined ? { tail } : {}),
        follow: o.follow,
      });
    }),
    ['vserver attach -n demo', 'vserver attach -n demo --tail 50', 'vserver attach -n demo --json | jq .'],
  );

  examples(
    withContext(
      program
        .command('set')
        .description(
          'Change keys of a server configuration (checked as start checks it; nothing is saved when a check fails)',
        )
        .argument('<key=value...>', 'dotted keys; values are read as YAML (5000, true, "text")'),
    ).action(async (pairs: string[], o: Ctx) => {
      const ref = await resolveRef(o);
      const assignments = pairs.map(parseAssignment);
      setKeys(ref.file, o.environment, assignments, () => {
        checkServerConfig(ref.file, o.environment);
      });
      process.stdout.write(
        `Set ${assignments.map((a) => a.key).join(', ')} in environment '${o.environment}' of ${ref.file}\n` +
          'A running server reads its configuration at start: restart it (vserver stop, vserver start) to apply.\n',
      );
    }),
    [
      'vserver set -n demo port=7601',
      'vserver set --user -n demo -e dev logging.level=DEBUG',
      'vserver set -n demo uri=postgresql://federa:pw@db/federa',
    ],
  );

  examples(
    withContext(
      program
        .command('files')
        .description('Print where the configuration, data, log and database of a server are'),
    ).action(async (o: Ctx) => {
      const ref = await resolveRef(o);
      table(Object.entries(serverFiles(ref, o.environment)).map(([k, v]) => [`${k}:`, v]));
    }),
    ['vserver files -n demo', 'vserver files --user -n demo -e dev'],
  );

  examples(
    withContext(
      program
        .command('import')
        .description(
          'Load organizations, users, collaborations, nodes and example tasks from a YAML fixture into the server database',
        ),
    )
      .argument(
        '<file>',
        'YAML file of organizations (with users) and collaborations (with participants); format and a complete example: docs/import-format.md',
      )
      .option(
        '-i, --image <image>',
        'server image to run the import in (default federa/server:<CLI major version>)',
      )
      .option('--drop-all', 'accepted for vantage6 compatibility; has no effect (as in vantage6 3.x)')
      .option('--keep', 'keep the import container after it ran (default: removed)')
      .option('--mount-src <source>', 'mount a built source checkout over the application in the container')
      .option('--develop <source>', 'same as --mount-src <source>')
      .action(
        async (
          file: string,
          o: Ctx & { image?: string; dropAll?: boolean; keep?: boolean; mountSrc?: string; develop?: string },
        ) => {
          const ref = await resolveRef(o);
          await importIntoServer(
            ref,
            file,
            {
              environment: o.environment,
              ...(o.image ? { image: o.image } : {}),
              ...(o.dropAll ? { dropAll: true } : {}),
              ...(o.keep ? { keep: true } : {}),
              ...((o.mountSrc ?? o.develop) ? { develop: sourceCheckout(o.mountSrc ?? o.develop) } : {}),
            },
            new Progress(),
          );
        },
      ),
    [
      'vserver import -n demo fixtures.yaml',
      'vserver import --user -n demo -e dev fixtures.yaml',
      'vserver import -n demo --image federa/server:0.1.0 fixtures.yaml',
    ],
  );

  examples(
    addScopeOptions(
      program
        .command('version')
        .description("Print the running server's version and the CLI's")
        .option('-n, --name <name>', 'name of the server configuration'),
      'system',
    ).action(async (o: ScopeFlags & { name?: string }) => {
      const name = o.name ?? (await resolveRef({ ...o, environment: 'prod' })).name;
      process.stdout.write(`${JSON.stringify(await serverVersion({ name, scope: scopeOf(o, 'system') }))}\n`);
    }),
    ['vserver version -n demo'],
  );

  const audit = program.command('audit').description("The server's audit log (docs/audit.md)");
  examples(
    withContext(
      audit
        .command('verify')
        .description(
          "Check that no entry of the server's audit log was edited, removed or reordered (the audit folder of its data folder, or --file)",
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
          const raw = checkServerConfig(ref.file, o.environment, {});
          path = join(serverHostDataDir(ref, raw), 'audit');
        }
        const { reason, text } = await auditVerifyOutcome(path, o.head, o.keyFile);
        if (reason !== 'ok') throw new CliError(reason, text.trimEnd());
        process.stdout.write(text);
      }),
    [
      'vserver audit verify -n main',
      'vserver audit verify --file /srv/federa/audit/server.000000000001.jsonl',
    ],
  );

  return program;
}
