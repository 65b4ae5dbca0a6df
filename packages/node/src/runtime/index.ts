export type * from './container-runtime.js';
export * from './errors.js';
export { parseImageRef, normalizeRegistry, type ImageRef } from './image-ref.js';
export { createContainerRuntime } from './runtime-factory.js';
export type { ContainerRuntimeOptions } from './runtime-factory.js';
