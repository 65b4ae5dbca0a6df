#!/usr/bin/env node
import { buildNodeProgram } from '../node/program.js';
import { runProgram } from '../util/command.js';

await runProgram(buildNodeProgram(), process.argv);
