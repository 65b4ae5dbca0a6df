export type * from './container-runtime.js';
export * from './errors.js';
export { DockerRuntime } from './docker/docker-runtime.js';
export type { DockerRuntimeOptions } from './docker/docker-runtime.js';
export type { RuntimeLogger } from './docker/engine.js';
export { parseImageRef, normalizeRegistry, type ImageRef } from './image-ref.js';
export { createContainerRuntime } from './runtime-factory.js';
export type { ContainerRuntimeOptions } from './runtime-factory.js';
