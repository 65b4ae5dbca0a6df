#!/usr/bin/env node
import { buildServerProgram } from '../server/program.js';
import { runProgram } from '../util/command.js';

await runProgram(buildServerProgram(), process.argv);
