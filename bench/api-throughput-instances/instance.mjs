#!/usr/bin/env node
// One Federa instance in its own process, for run.mjs: `node instance.mjs <config file>`.
// Prints one JSON line {"port": N} once listening; stops on SIGTERM.
import { startServer } from '@federa/server';

const handle = await startServer({
  configFile: process.argv[2],
  environment: 'prod',
  port: 0,
  logStream: { write: () => undefined },
  handleSignals: true,
});
process.stdout.write(`${JSON.stringify({ port: handle.port })}\n`);
await handle.closed;
process.exit(0);
