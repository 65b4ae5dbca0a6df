// The API's response shapes and request bodies, declared once: the server serializes and validates with these
// schemas, the clients and the node read and send the `Static<>` types.
export * from './fields.js';
export * from './message.js';
export * from './error-codes.js';
export * from './list.js';
export * from './organization.js';
export * from './collaboration.js';
export * from './node.js';
export * from './user.js';
export * from './role.js';
export * from './rule.js';
export * from './port.js';
export * from './task.js';
export * from './task-databases.js';
export * from './run-report.js';
export * from './container-token.js';
