#!/usr/bin/env node
/**
 * `vnode-local start -c <file> [-e <environment>] [-n <name>]` runs the node on this host;
 * `vnode-local version` prints the version.
 */
import { Command } from 'commander';
import { ConfigError } from '@federa/common';

import { loadNodeConfig, DEFAULT_ENVIRONMENT } from '../config/node-config.js';
import { NodeStoppedError, StartupError, WrongApiKeyError } from '../errors.js';
import { createNodeLogger } from '../logger.js';
import { startNode } from '../node.js';
import { NODE_VERSION } from '../version.js';
import { exitWith } from './exit.js';

const program = new Command('vnode-local').description('Federa node (vantage6 3.x compatible)');

program
  .command('version')
  .description('print the node version')
  .action(() => {
    process.stdout.write(`${NODE_VERSION}\n`);
  });

program
  .command('start')
  .description('run the node daemon on this host')
  .requiredOption('-c, --config <file>', 'node configuration file (YAML)')
  .option('-e, --environment <name>', 'environment in the file', DEFAULT_ENVIRONMENT)
  .option('-n, --name <name>', 'instance name (default: the file name without .yaml)')
  .action(async (opts: { config: string; environment: string; name?: string }) => {
    let config;
    try {
      config = loadNodeConfig({
        file: opts.config,
        environment: opts.environment,
        ...(opts.name ? { name: opts.name } : {}),
        env: process.env,
      });
    } catch (error) {
      if (error instanceof ConfigError) exitWith('config', `configuration error: ${error.message}`);
      throw error;
    }
    const log = createNodeLogger(config);
    const starting = new AbortController();
    let running: Awaited<ReturnType<typeof startNode>> | undefined;
    let stopping = false;
    const stop = (sig: string): void => {
      if (stopping) return;
      stopping = true;
      log.info({ event: 'node.signal', signal: sig }, 'stop requested');
      starting.abort();
      if (!running) return;
      running.stop().then(
        () => {
          log.flush();
          setTimeout(() => exitWith('ok'), 100);
        },
        () => exitWith('error'),
      );
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    try {
      running = await startNode({ config, log, signal: starting.signal });
    } catch (error) {
      log.flush();
      if (error instanceof NodeStoppedError) exitWith('ok');
      log.fatal({ event: 'node.start_failed', err: (error as Error).message }, 'the node did not start');
      log.flush();
      if (error instanceof WrongApiKeyError) exitWith('wrongApiKey', error.message);
      if (error instanceof StartupError) exitWith('startup', error.message);
      exitWith('error', (error as Error).message);
    }
  });

program.parseAsync(process.argv).catch((error: unknown) => exitWith('error', String(error)));
