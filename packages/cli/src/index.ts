/** @federa/cli: the `vserver` and `vnode` command lines, and their parts for programmatic use. */
export * from './paths.js';
export * from './exit-codes.js';
export * from './version.js';
export { buildServerProgram } from './server/program.js';
export { buildNodeProgram } from './node/program.js';
export type { PromptStreams } from './util/asker.js';
