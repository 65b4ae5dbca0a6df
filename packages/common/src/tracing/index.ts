export * from './traceparent.js';
export * from './attributes.js';
export * from './config.js';
export * from './tracing.js';
