/** The `vnode` command line: managing nodes that run in Docker. */
import { Command } from 'commander';
import { CLI_VERSION } from '../version.js';
import { addCleanCommand, addRemoveCommand } from './cleanup-commands.js';
import {
  addCreatePrivateKeyCommand,
  addFilesCommand,
  addNewCommand,
  addSetCommand,
} from './config-commands.js';
import {
  addAttachCommand,
  addListCommand,
  addStartCommand,
  addStopCommand,
  addVersionCommand,
} from './container-commands.js';
import { addAuditCommands, addLogsCommand } from './record-commands.js';
import { addReviewCommands } from './review-commands.js';

export function buildNodeProgram(): Command {
  const program = new Command('vnode')
    .description('Create, start and manage Federa nodes that run in Docker.')
    .version(CLI_VERSION, '--cli-version', "print the CLI's version");
  // in this order: it is the order of `vnode --help`
  addNewCommand(program);
  addStartCommand(program);
  addStopCommand(program);
  addListCommand(program);
  addAttachCommand(program);
  addSetCommand(program);
  addFilesCommand(program);
  addAuditCommands(program);
  addLogsCommand(program);
  addReviewCommands(program);
  addCleanCommand(program);
  addRemoveCommand(program);
  addCreatePrivateKeyCommand(program);
  addVersionCommand(program);
  return program;
}
