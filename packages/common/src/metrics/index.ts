export * from './endpoint.js';
export * from './process-registry.js';
