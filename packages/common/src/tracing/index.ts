// The light part of tracing: the `traceparent` format, the attribute list and the configuration key. The SDK's
// part (spans and their export) is `@federa/common/tracing`, loaded only by the processes that trace.
export * from './traceparent.js';
export * from './attributes.js';
export * from './config.js';
