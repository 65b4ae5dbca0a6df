export * from './canonical-json.js';
export * from './audit-entry.js';
export * from './audit-files.js';
export * from './audit-lock.js';
export * from './audit-log.js';
export * from './audit-append.js';
export * from './audit-verify.js';
export * from './audit-verdict.js';
