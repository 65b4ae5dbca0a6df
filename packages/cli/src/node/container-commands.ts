/** The `vnode` commands on a node's container: start, stop, list, attach, version. */
import type { Command } from 'commander';
import { connectDocker } from '../docker/engine.js';
import { CliError } from '../exit-codes.js';
import { attachLogs, parseTail } from '../server/start.js';
import { defaultAsker } from '../util/asker.js';
import { addScopeOptions, examples, scopeOf, table, type ScopeFlags } from '../util/command.js';
import { Progress } from '../util/progress.js';
import { sourceCheckout } from '../util/source.js';
import { listNodes, nodeVersion, runningNodes, stopNodes } from './commands.js';
import { resolveRef, withContext, type Ctx } from './command-context.js';
import { nodeContainerName } from './naming.js';
import { chooseRuntime, podmanNodeRunning, startNodeOnPodman, stopNodeOnPodman } from './podman-start.js';
import { startNode } from './start.js';
import { checkNodeConfig } from '../config/validate.js';

const DEFAULT_NODE_ENVIRONMENT = 'application';

/** The node's configuration when it names rootless Podman (its node is a process of this host, not a container). */
async function podmanNodeOf(o: ScopeFlags & { name?: string; config?: string }) {
  try {
    const ref = await resolveRef(o);
    const raw = checkNodeConfig(ref.file, DEFAULT_NODE_ENVIRONMENT, ref.name, process.env);
    return raw.container_runtime === 'podman' || podmanNodeRunning(ref, raw) ? ref : undefined;
  } catch {
    return undefined; // no readable configuration: the Docker path says what is wrong
  }
}

/** `vnode start`. */
export function addStartCommand(program: Command): void {
  examples(
    withContext(
      program
        .command('start')
        .description('Start a node in Docker, or on this host with rootless Podman (--runtime podman)'),
    )
      .option(
        '--runtime <runtime>',
        "docker (the node in a container) or podman (the node on this host as this user, its algorithms on the user's rootless Podman); default: the configuration's container_runtime, else docker",
      )
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
            runtime?: string;
          },
        ) => {
          const ref = await resolveRef(o);
          const configured = checkNodeConfig(
            ref.file,
            o.environment,
            ref.name,
            process.env,
          ).container_runtime;
          if (chooseRuntime(o.runtime, configured) === 'podman') {
            const { pid, logFile } = await startNodeOnPodman(ref, {
              environment: o.environment,
              wait: Number(o.wait),
            });
            process.stdout.write(
              `Node ${ref.name} runs on this host as process ${pid}, its algorithms on rootless Podman; log: ${logFile}\n`,
            );
            return;
          }
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
      'vnode start -n hospital-a --runtime podman',
    ],
  );
}

/** `vnode stop`. */
export function addStopCommand(program: Command): void {
  examples(
    addScopeOptions(
      program
        .command('stop')
        .description('Stop a running node')
        .option('-n, --name <name>', 'name of the node configuration')
        .option('-c, --config <file>', 'the node configuration file (instead of -n)')
        .option('--all', 'stop every running node on this Docker host (asks first)')
        .option('--force', 'kill instead of a graceful stop')
        .option('-y, --yes', 'do not ask for confirmation (--all)'),
      'user',
    ).action(
      async (
        o: ScopeFlags & { name?: string; config?: string; all?: boolean; force?: boolean; yes?: boolean },
      ) => {
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
        const onPodman = o.all ? undefined : await podmanNodeOf(o);
        if (onPodman) {
          const environment = DEFAULT_NODE_ENVIRONMENT;
          if (!(await stopNodeOnPodman(onPodman, { environment, force: o.force === true })))
            throw new CliError('state', `the node '${onPodman.name}' is not running`);
          process.stdout.write(`Stopped ${onPodman.name}\n`);
          return;
        }
        const target = o.all
          ? ('all' as const)
          : { name: o.name ?? (await resolveRef(o)).name, scope: scopeOf(o, 'user') };
        const stopped = await stopNodes(target, { force: o.force === true });
        process.stdout.write(stopped.length ? `Stopped ${stopped.join(', ')}\n` : 'No node was running\n');
      },
    ),
    ['vnode stop -n hospital-a', 'vnode stop --all --yes', 'vnode stop -n hospital-a --force'],
  );
}

/** `vnode list`. */
export function addListCommand(program: Command): void {
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
}

/** `vnode attach`: follow the logs. */
export function addAttachCommand(program: Command): void {
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
}

/** `vnode version`. */
export function addVersionCommand(program: Command): void {
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
}
