/** The `vnode` commands that write a node's configuration: new, set, files, create-private-key. */
import type { Command } from 'commander';
import { parseAssignment, setKeys } from '../config/set.js';
import { checkNodeConfig } from '../config/validate.js';
import { defaultAsker } from '../util/asker.js';
import { addScopeOptions, examples, scopeOf, table, type ScopeFlags } from '../util/command.js';
import { createPrivateKey, nodeFiles } from './commands.js';
import { collect, resolveRef, withContext, type Ctx } from './command-context.js';
import { newNodeConfig } from './new.js';

/** `vnode new`: the configuration wizard. */
export function addNewCommand(program: Command): void {
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
        .option(
          '--runtime <runtime>',
          'container engine of the algorithms: docker (default) or podman (rootless)',
        )
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
}

/** `vnode set`: change keys of a configuration. */
export function addSetCommand(program: Command): void {
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
}

/** `vnode files`: where a node's files are. */
export function addFilesCommand(program: Command): void {
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
}

/** `vnode create-private-key`: the organization's key. */
export function addCreatePrivateKeyCommand(program: Command): void {
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
}
