/** What the `vnode` commands share: the options that name a node configuration and finding that configuration. */
import type { Command } from 'commander';
import { selectInstance } from '../config/store.js';
import { addScopeOptions, pickInstance, scopeOf, type ScopeFlags } from '../util/command.js';

/** The options of a command that works on one node configuration. */
export interface Ctx extends ScopeFlags {
  name?: string;
  config?: string;
  environment: string;
}

/** Adds the options of {@link Ctx} (`--config` unless `config` is false) to `cmd`. */
export const withContext = (cmd: Command, config = true): Command => {
  cmd.option('-n, --name <name>', 'name of the node configuration');
  if (config) cmd.option('-c, --config <file>', 'path of a configuration file (the name is its stem)');
  cmd.option('-e, --environment <env>', 'environment of the configuration file', 'application');
  return addScopeOptions(cmd, 'user');
};

/** The node configuration the options name (asks which when several fit). */
export const resolveRef = (o: Partial<Ctx>) =>
  selectInstance(
    'node',
    {
      scope: scopeOf(o, 'user'),
      ...(o.name ? { name: o.name } : {}),
      ...(o.config ? { config: o.config } : {}),
    },
    pickInstance,
  );

/** Commander's collector of a repeatable option. */
export const collect = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  value,
];
