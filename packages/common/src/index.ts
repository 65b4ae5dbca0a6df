export * from './config/config-file.js';
export * from './encryption/index.js';
export * from './socket-events.js';
export * from './image-reference.js';
export * from './ipv4-subnet.js';
export * from './audit/index.js';
export * from './wire/index.js';
export * from './run-status.js';
