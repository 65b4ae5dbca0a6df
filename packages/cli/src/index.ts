/** @federa/cli: the `vserver` and `vnode` command lines, and their parts for programmatic use. */
export * from './paths.js';
export * from './exit-codes.js';
export * from './version.js';
export { importFixture, readFixture } from './import/fixture.js';
export type { Fixture, ImportResult, ImportTarget, ImportedNode } from './import/fixture.js';
export { buildServerProgram } from './server/program.js';
export { buildNodeProgram } from './node/program.js';
