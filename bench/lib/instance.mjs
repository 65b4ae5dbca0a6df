#!/usr/bin/env node
// One Federa instance in its own process, for the benchmarks: `node instance.mjs <config file> [port]`.
// Prints one JSON line {"port": N} once listening; stops on SIGTERM.
import { startServer } from '@federa/server';

const handle = await startServer({
  configFile: process.argv[2],
  environment: 'prod',
  port: Number(process.argv[3] ?? 0),
  logStream: { write: () => undefined },
  handleSignals: true,
});
process.stdout.write(`${JSON.stringify({ port: handle.port })}\n`);
await handle.closed;
process.exit(0);
