/** The `vnode` command line: managing nodes that run in Docker. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { selectInstance } from '../config/store.js';
import { connectDocker } from '../docker/engine.js';
import { CliError } from '../exit-codes.js';
import { defaultAsker } from '../util/asker.js';
import { addScopeOptions, examples, pickInstance, scopeOf, table, type ScopeFlags } from '../util/command.js';
import { Progress } from '../util/progress.js';
import { sourceCheckout } from '../util/source.js';
import { CLI_VERSION } from '../version.js';
import { attachLogs, parseTail } from '../server/start.js';
import {
  cleanNode,
  createPrivateKey,
  listNodes,
  nodeFiles,
  nodeVersion,
  removalPlan,
  removeNode,
  runningNodes,
  runVolumes,
  stopNodes,
} from './commands.js';
import { nodeContainerName } from './naming.js';
import { newNodeConfig } from './new.js';
import { parseAssignment, setKeys } from '../config/set.js';
import { checkNodeConfig } from '../config/validate.js';
import { nodeAuditDir, nodeLayout, startNode } from './start.js';
import { formatAuditVerdict, keptRunLogPath, verifyAuditPath } from '@federa/common';

interface Ctx extends ScopeFlags {
  name?: string;
  config?: string;
  environment: string;
}

const withContext = (cmd: Command, config = true): Command => {
  cmd.option('-n, --name <name>', 'name of the node configuration');
  if (config) cmd.option('-c, --config <file>', 'path of a configuration file (the name is its stem)');
  cmd.option('-e, --environment <env>', 'environment of the configuration file', 'application');
  return addScopeOptions(cmd, 'user');
};

const resolveRef = (o: Partial<Ctx>) =>
  selectInstance(
    'node',
    {
      scope: scopeOf(o, 'user'),
      ...(o.name ? { name: o.name } : {}),
      ...(o.config ? { config: o.config } : {}),
    },
    pickInstance,
  );

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function buildNodeProgram(): Command {
  const program = new Command('vnode')
    .description('Create, start and manage Federa nodes that run in Docker.')
    .version(CLI_VERSION, '--cli-version', "print the CLI's version");

  examples(
    addScopeOptions(
      program
        .command('new')
        .description('Create a node configuration (a wizard; every answer can be given as a flag)')
        .option('-n, --name <name>', 'configuration name (letters, digits, _ . -)')
        .option(
          '-e, --environment <env>',
          'environment to write: application (default), prod, acc, test, dev',
        )
        .option('--api-key <key>', "the node's API key (from the server)")
        .option(
          '--server-url <url>',
          'server scheme and host (default http://host.docker.internal: this machine, seen from Docker)',
        )
        .option('--port <port>', 'server port (default 5000)')
        .option('--api-path <path>', 'API path (default /api)')
        .option(
          '--database <LABEL[:TYPE]=URI>',
          'a data source; repeat for several (type: csv, parquet, sql, sparql, omop, excel, other)',
          collect,
        )
        .option('--log-level <level>', 'DEBUG, INFO, WARNING, ERROR or CRITICAL (default INFO)')
        .option('--vpn-subnet <cidr>', 'VPN subnet, e.g. 10.76.0.0/16 (default: no VPN)')
        .option('--encryption', 'the collaboration is encrypted')
        .option('--no-encryption', 'the collaboration is not encrypted (default)')
        .option('--private-key <path>', "path of the organization's private key")
        .option('--image <image>', 'node image to start (default federa/node:<CLI major version>)')
        .option('-y, --yes', 'do not ask: take defaults for everything not given'),
      'user',
    ).action(async (o: Record<string, unknown> & ScopeFlags, cmd: Command) => {
      const given = Object.fromEntries(
        Object.entries(o).filter(([k, v]) => v !== undefined && !['user', 'system', 'yes'].includes(k)),
      );
      // --no-encryption gives `encryption` a default of true; only a flag actually given answers the question
      if (cmd.getOptionValueSource('encryption') !== 'cli') delete given.encryption;
      const result = await newNodeConfig(
        { scope: scopeOf(o, 'user'), ...given },
        defaultAsker(o.yes === true),
      );
      const flag = scopeOf(o, 'user') === 'system' ? ' --system' : '';
      const encrypted = (result.values.encryption as { enabled?: boolean } | undefined)?.enabled === true;
      process.stdout.write(
        `Wrote environment '${result.environment}' of ${result.file}\n` +
          (encrypted
            ? `The collaboration is encrypted: before the first start, create the organization's key (it needs the server): vnode create-private-key -n ${result.name}${flag}\nThen start the node with: vnode start -n ${result.name}${flag}\n`
            : `Start it with: vnode start -n ${result.name}${flag}\n`),
      );
    }),
    [
      'vnode new',
      'vnode new -n hospital-a --api-key 0f7c… --server-url https://federa.example.org --port 443 --database default=/data/patients.csv --yes',
      'vnode new -n lab --api-key … --database default:csv=/data/a.csv --database omop:sql=postgresql://db/omop --vpn-subnet 10.76.0.0/16 --encryption --yes',
    ],
  );

  examples(
    withContext(program.command('start').description('Start a node in Docker'))
      .option('-i, --image <image>', 'node image (default: config image, else federa/node:<CLI major>)')
      .option('--attach', 'follow the logs after starting (Ctrl-C stops following, not the node)')
      .option('--keep', 'keep the container after it stops (default: removed)')
      .option('--force-db-mount', 'mount file databases even when they do not exist (yet)')
      .option(
        '--develop [source]',
        'mount a built Federa checkout at /federa (default: the checkout of this CLI)',
      )
      .option('--mount-src <source>', 'same as --develop <source>')
      .option(
        '--wait <seconds>',
        'seconds to wait for the server to report the node online (0: do not wait)',
        '60',
      )
      .action(
        async (
          o: Ctx & {
            image?: string;
            attach?: boolean;
            keep?: boolean;
            forceDbMount?: boolean;
            develop?: string | true;
            mountSrc?: string;
            wait: string;
          },
        ) => {
          const ref = await resolveRef(o);
          await startNode(
            ref,
            {
              environment: o.environment,
              ...(o.image ? { image: o.image } : {}),
              ...((o.develop ?? o.mountSrc) ? { develop: sourceCheckout(o.develop ?? o.mountSrc) } : {}),
              attach: o.attach === true,
              keep: o.keep === true,
              forceDbMount: o.forceDbMount === true,
              wait: Number(o.wait),
            },
            new Progress(),
          );
        },
      ),
    [
      'vnode start -n hospital-a',
      'vnode start -n hospital-a --attach',
      'vnode start -c ./lab.yaml --image federa/node:0.1.0',
      'vnode start -n dev --develop ~/src/federa',
    ],
  );

  examples(
    addScopeOptions(
      program
        .command('stop')
        .description('Stop a running node')
        .option('-n, --name <name>', 'name of the node configuration')
        .option('--all', 'stop every running node on this Docker host (asks first)')
        .option('--force', 'kill instead of a graceful stop')
        .option('-y, --yes', 'do not ask for confirmation (--all)'),
      'user',
    ).action(async (o: ScopeFlags & { name?: string; all?: boolean; force?: boolean; yes?: boolean }) => {
      if (o.all) {
        const running = await runningNodes();
        if (running.length === 0) {
          process.stdout.write('No node was running\n');
          return;
        }
        process.stdout.write(
          `Running nodes on this Docker host:\n${running.map((c) => `  ${c}`).join('\n')}\n`,
        );
        await defaultAsker(o.yes).approve(`Stop these ${running.length} nodes?`, o.yes);
      }
      const target = o.all
        ? ('all' as const)
        : { name: o.name ?? (await resolveRef(o)).name, scope: scopeOf(o, 'user') };
      const stopped = await stopNodes(target, { force: o.force === true });
      process.stdout.write(stopped.length ? `Stopped ${stopped.join(', ')}\n` : 'No node was running\n');
    }),
    ['vnode stop -n hospital-a', 'vnode stop --all --yes', 'vnode stop -n hospital-a --force'],
  );

  examples(
    program
      .command('list')
      .description(
        "List node configurations (user and system): the container's state and, separately, the node's status at the server",
      )
      .action(async () => {
        const rows = await listNodes();
        table([
          ['NAME', 'SCOPE', 'CONTAINER', 'SERVER', 'ENVIRONMENTS', 'FILE'],
          ...rows.map((r) => [r.name, r.scope, r.container, r.server, r.environments.join(','), r.file]),
        ]);
        process.stdout.write(
          "CONTAINER: running, stopped or - (none). SERVER: what the server reports for the node's API key (online, offline), unreachable (no answer from this host) or refused (wrong API key).\n",
        );
      }),
    ['vnode list'],
  );

  examples(
    addScopeOptions(
      program
        .command('attach')
        .description('Follow the logs of a running node, as readable lines (Ctrl-C to stop following)')
        .option('-n, --name <name>', 'name of the node configuration')
        .option('--json', 'the raw JSON lines the node writes')
        .option('--tail <lines>', 'start with only the last N lines of the history')
        .option('--no-follow', 'print the history and stop'),
      'user',
    ).action(async (o: ScopeFlags & { name?: string; json?: boolean; tail?: string; follow: boolean }) => {
      const name = o.name ?? (await resolveRef(o)).name;
      const tail = parseTail(o.tail);
      const docker = await connectDocker();
      const container = nodeContainerName(name, scopeOf(o, 'user'));
      if (!(await docker.isRunning(container)))
        throw new CliError('state', `the node '${name}' is not running`);
      await attachLogs(docker, container, {
        ...(o.json ? { json: true } : {}),
        ...(tail !== undefined ? { tail } : {}),
        follow: o.follow,
      });
    }),
    [
      'vnode attach -n hospital-a',
      'vnode attach -n hospital-a --tail 100',
      'vnode attach -n hospital-a --json',
    ],
  );

  examples(
    withContext(
      program
        .command('set')
        .description(
          'Change keys of a node configuration (checked as start checks it; nothing is saved when a check fails)',
        )
        .argument('<key=value...>', 'dotted keys; values are read as YAML (5000, true, "text")'),
    ).action(async (pairs: string[], o: Ctx) => {
      const ref = await resolveRef(o);
      const assignments = pairs.map(parseAssignment);
      setKeys(ref.file, o.environment, assignments, () => {
        checkNodeConfig(ref.file, o.environment, ref.name, process.env);
      });
      process.stdout.write(
        `Set ${assignments.map((a) => a.key).join(', ')} in environment '${o.environment}' of ${ref.file}\n` +
          `A running node reads its configuration at start: restart it (vnode stop -n ${ref.name}, vnode start -n ${ref.name}) to apply.\n`,
      );
    }),
    [
      'vnode set -n hospital-a server_url=http://host.docker.internal port=5000',
      'vnode set -n hospital-a api_key=0f7c…',
      'vnode set -n hospital-a encryption.enabled=true',
    ],
  );

  examples(
    withContext(
      program
        .command('files')
        .description('Print where the configuration, data, logs, key and databases of a node are'),
    ).action(async (o: Ctx) => {
      const ref = await resolveRef(o);
      table(nodeFiles(ref, o.environment).map(([k, v]) => [`${k}:`, v]));
    }),
    ['vnode files -n hospital-a'],
  );

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
      .action(async (o: Ctx & { file?: string }) => {
        let path = o.file;
        if (path === undefined) {
          const ref = await resolveRef(o);
          path = nodeAuditDir(
            nodeLayout(ref, checkNodeConfig(ref.file, o.environment, ref.name, process.env)),
          );
        }
        const where = path;
        const { ok, text } = formatAuditVerdict(
          await verifyAuditPath(path).catch((error: unknown) => {
            throw new CliError(
              'failure',
              `cannot read the audit log at ${where}: ${(error as Error).message}`,
            );
          }),
        );
        if (!ok) throw new CliError('tampered', text.trimEnd());
        process.stdout.write(text);
      }),
    ['vnode audit verify -n hospital-a', 'vnode audit verify --file ./audit/node.000000000001.jsonl'],
  );

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
      const text = await readFile(file, 'utf8').catch(() => {
        throw new CliError(
          'failure',
          `node ${ref.name} keeps no log of run ${run} (looked in ${file}); a node with share_logs: true sends its runs' logs to the server`,
        );
      });
      process.stdout.write(text);
    }),
    ['vnode logs 42 -n hospital-a'],
  );

  examples(
    addScopeOptions(
      program
        .command('clean')
        .description(
          "Remove the temporary run volumes (names ending in 'tmpvol') of a node, or of all nodes with --all",
        )
        .option('-n, --name <name>', 'name of the node configuration')
        .option('--all', "every volume whose name ends in 'tmpvol'")
        .option('-y, --yes', 'do not ask for confirmation'),
      'user',
    ).action(async (o: ScopeFlags & { name?: string; all?: boolean; yes?: boolean }) => {
      const docker = await connectDocker();
      const target = o.all ? ('all' as const) : { name: o.name ?? (await resolveRef(o)).name };
      const volumes = await runVolumes(target, docker);
      if (volumes.length === 0) {
        process.stdout.write('No run volumes to remove\n');
        return;
      }
      process.stdout.write(`Run volumes:\n${volumes.map((v) => `  ${v}`).join('\n')}\n`);
      await defaultAsker(o.yes).approve(`Remove these ${volumes.length} volumes?`, o.yes);
      const result = await cleanNode(target, docker);
      process.stdout.write(`Removed ${result.removed.length} volumes\n`);
      if (result.inUse.length)
        process.stderr.write(`warning: still in use, kept: ${result.inUse.join(', ')}\n`);
    }),
    ['vnode clean -n hospital-a', 'vnode clean --all --yes'],
  );

  examples(
    withContext(
      program
        .command('remove')
        .description('Remove a node: its configuration, volumes, data folder (keys) and logs'),
      false,
    )
      .option('-y, --yes', 'do not ask for confirmation')
      .action(async (o: Ctx & { yes?: boolean }) => {
        const ref = await resolveRef(o);
        const docker = await connectDocker();
        if (await docker.isRunning(nodeContainerName(ref.name, ref.scope))) {
          throw new CliError(
            'state',
            `the node '${ref.name}' is running; stop it first with 'vnode stop -n ${ref.name}'`,
          );
        }
        const plan = await removalPlan(ref, docker);
        process.stdout.write(
          `This removes:\n${[...plan.files, ...plan.volumes.map((v) => `volume ${v}`)].map((l) => `  ${l}`).join('\n')}\n`,
        );
        await defaultAsker(o.yes).approve(`Remove the node '${ref.name}'?`, o.yes);
        await removeNode(ref, docker);
        process.stdout.write(`Removed the node '${ref.name}'\n`);
      }),
    ['vnode remove -n hospital-a', 'vnode remove -n hospital-a --yes'],
  );

  examples(
    withContext(
      program
        .command('create-private-key')
        .description(
          "Create the organization's private key, set it in the configuration and upload the public key",
        ),
    )
      .option(
        '-o, --organization-name <name>',
        'organization name (default: asked from the server with the node API key)',
      )
      .option('--overwrite', 'replace an existing key file')
      .option('--no-upload', 'do not upload the public key')
      .action(async (o: Ctx & { organizationName?: string; overwrite?: boolean; upload: boolean }) => {
        const ref = await resolveRef(o);
        const result = await createPrivateKey(
          ref,
          {
            environment: o.environment,
            upload: o.upload,
            ...(o.organizationName ? { organizationName: o.organizationName } : {}),
            ...(o.overwrite ? { overwrite: true } : {}),
          },
          process.env,
          (line) => process.stdout.write(`${line}\n`),
        );
        if (!result.uploaded && o.upload) process.stderr.write('warning: the public key was not uploaded\n');
      }),
    [
      'vnode create-private-key -n hospital-a',
      'vnode create-private-key -c ./lab.yaml -o "Lab A" --no-upload',
      'vnode create-private-key -n hospital-a --overwrite',
    ],
  );

  examples(
    addScopeOptions(
      program
        .command('version')
        .description("Print the running node's version and the CLI's")
        .option('-n, --name <name>', 'name of the node configuration'),
      'user',
    ).action(async (o: ScopeFlags & { name?: string }) => {
      const name = o.name ?? (await resolveRef(o)).name;
      process.stdout.write(`${JSON.stringify(await nodeVersion({ name, scope: scopeOf(o, 'user') }))}\n`);
    }),
    ['vnode version -n hospital-a'],
  );

  return program;
}
