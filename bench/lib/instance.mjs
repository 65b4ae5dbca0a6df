#!/usr/bin/env node
// One Federa instance in its own process, for the benchmarks: `node instance.mjs <config file> [port]`.
// Prints one JSON line {"port": N} once listening; stops on SIGTERM. With FEDERA_BENCH_WATCH=<file> it also watches
// its own event loop and garbage collections between SIGUSR2 and SIGUSR1 (loop-watch.mjs).
import { startServer } from '@federa/server';
import { watchLoop } from './loop-watch.mjs';

if (process.env.FEDERA_BENCH_WATCH) watchLoop(process.env.FEDERA_BENCH_WATCH);

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
