/** The `vnode` commands that remove things: clean (run volumes), remove (a whole node). */
import type { Command } from 'commander';
import { connectDocker } from '../docker/engine.js';
import { CliError } from '../exit-codes.js';
import { defaultAsker } from '../util/asker.js';
import { addScopeOptions, examples, type ScopeFlags } from '../util/command.js';
import { cleanNode, removalPlan, removeNode, runVolumes } from './commands.js';
import { resolveRef, withContext, type Ctx } from './command-context.js';
import { nodeContainerName } from './naming.js';

/** `vnode clean`: remove temporary run volumes. */
export function addCleanCommand(program: Command): void {
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
}

/** `vnode remove`: remove a node and its files. */
export function addRemoveCommand(program: Command): void {
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
}
