#!/usr/bin/env node
// The `vserver-local` program: runs the command line of vserver-local-cli.ts and exits through the exit-code table.
import { runCli } from './vserver-local-cli.js';
import { exitWith, unexpectedErrorText } from './exit-codes.js';

runCli(process.argv.slice(2)).then(
  (reason) => exitWith(reason),
  (error: unknown) => exitWith('failure', unexpectedErrorText(error)),
);
