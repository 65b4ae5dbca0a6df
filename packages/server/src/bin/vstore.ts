#!/usr/bin/env node
// The `vstore` program: an algorithm store in a process of its own (vstore-cli.ts).
import { runStoreCli } from './vstore-cli.js';
import { exitWith, unexpectedErrorText } from './exit-codes.js';

runStoreCli(process.argv.slice(2)).then(
  (reason) => exitWith(reason),
  (error: unknown) => exitWith('failure', unexpectedErrorText(error)),
);
