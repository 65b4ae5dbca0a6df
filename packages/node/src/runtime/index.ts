export type * from './container-runtime.js';
export * from './errors.js';
export { DockerRuntime, parseImageRef, normalizeRegistry } from './docker-runtime.js';
export type { DockerRuntimeOptions, ImageRef, RuntimeLogger } from './docker-runtime.js';
export { createContainerRuntime } from './runtime-factory.js';
export type { ContainerRuntimeOptions } from './runtime-factory.js';
