/** Data access for tasks, one concern per file. */
export * from './rows.js';
export * from './status-filter.js';
export * from './list.js';
export * from './create.js';
export * from './kill.js';
export * from './delete.js';
export * from './load.js';
export * from './databases.js';
