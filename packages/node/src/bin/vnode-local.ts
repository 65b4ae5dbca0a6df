#!/usr/bin/env node
/**
 * `vnode-local start -c <file> [-e <environment>] [-n <name>] [--dockerized]` runs the node (on this host, or with
 * `--dockerized` inside the node container that `vnode start` runs); `vnode-local version` prints the version.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError, exitWith } from '@federa/common';

import { loadNodeConfig, DEFAULT_ENVIRONMENT } from '../config/node-config.js';
import { NodeStoppedError, StartupError, WrongApiKeyError } from '../errors.js';
import { createNodeLogger } from '../logger.js';
import { startNode } from '../node.js';
import { installProcessGuard } from '../process-guard.js';
import { NODE_VERSION } from '../version.js';

interface StartFlags {
  config: string;
  environment: string;
  name?: string;
  dockerized?: boolean;
  nonDockerized?: boolean;
  user?: boolean;
  system?: boolean;
}

const program = new Command('vnode-local')
  .description('Federa node (vantage6 3.x compatible)')
  .exitOverride();

program
  .command('version')
  .description('print the node version')
  .action(() => {
    process.stdout.write(`${NODE_VERSION}\n`);
  });

program
  .command('start')
  .description('run the node daemon (on this host, or in the node container with --dockerized)')
  .requiredOption('-c, --config <file>', 'node configuration file (YAML)')
  .option('-e, --environment <name>', 'environment in the file', DEFAULT_ENVIRONMENT)
  .option('-n, --name <name>', 'instance name (default: the file name without .yaml)')
  .option(
    '--dockerized',
    'run inside the node container: data in /mnt/data (volume DATA_VOLUME_NAME), logs in /mnt/log, ' +
      'databases from <LABEL>_DATABASE_URI, the proxy reached as proxyserver',
  )
  .option('--non-dockerized', 'run on this host (the default)')
  .option('--user', 'accepted for vantage6 CLI compatibility (the configuration is given with -c)')
  .option('--system', 'accepted for vantage6 CLI compatibility (the configuration is given with -c)')
  .addHelpText(
    'after',
    `
Examples:
  vnode-local start -c alpha.yaml
  vnode-local start -c alpha.yaml -e dev -n alpha-dev
  vnode-local start -c /mnt/config/alpha.yaml -e application --dockerized   (what vnode start runs)`,
  )
  .action(async (opts: StartFlags) => {
    if (opts.dockerized && opts.nonDockerized)
      exitWith('usage', 'give either --dockerized or --non-dockerized, not both');
    let config;
    try {
      config = loadNodeConfig({
        file: opts.config,
        environment: opts.environment,
        ...(opts.name ? { name: opts.name } : {}),
        env: process.env,
        dockerized: opts.dockerized === true,
      });
    } catch (error) {
      if (error instanceof ConfigError) exitWith('config', `configuration error: ${error.message}`);
      throw error;
    }
    const log = createNodeLogger(config);
    installProcessGuard(log);
    const starting = new AbortController();
    let running: Awaited<ReturnType<typeof startNode>> | undefined;
    let stopping = false;
    const finish = (node: Awaited<ReturnType<typeof startNode>>): void => {
      node.stop().then(
        () => {
          log.flush();
          setTimeout(() => exitWith('ok'), 100);
        },
        () => exitWith('failure'),
      );
    };
    const stop = (sig: string): void => {
      if (stopping) return;
      stopping = true;
      log.info({ event: 'node.signal', signal: sig }, 'stop requested');
      starting.abort();
      // During the start, the start itself ends (and cleans up) at its next step: see below.
      if (running) finish(running);
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    try {
      running = await startNode({ config, log, signal: starting.signal });
    } catch (error) {
      log.flush();
      // A stop during the start makes the start fail in whatever step it was: that is the stop, not a failure.
      if (error instanceof NodeStoppedError || starting.signal.aborted) {
        log.info({ event: 'node.stopped' }, 'node stopped during its start');
        log.flush();
        setTimeout(() => exitWith('ok'), 100);
        return;
      }
      log.fatal({ event: 'node.start_failed', err: (error as Error).message }, 'the node did not start');
      log.flush();
      if (error instanceof WrongApiKeyError) exitWith('remote', error.message);
      if (error instanceof StartupError) exitWith('unavailable', error.message);
      exitWith('failure', (error as Error).message);
    }
    // The stop came after the start's last step: stop the node that has just come up.
    if (stopping) finish(running);
  });

// Every outcome leaves through the exit-code table: commander's own (help, unknown option) as `ok` or `usage`.
program
  .parseAsync(process.argv)
  .catch((error: unknown) =>
    error instanceof CommanderError
      ? exitWith(error.exitCode === 0 ? 'ok' : 'usage')
      : exitWith('failure', String(error)),
  );
