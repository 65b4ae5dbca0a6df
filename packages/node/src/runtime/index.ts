export type * from './container-runtime.js';
export * from './errors.js';
export { parseImageRef, normalizeRegistry, type ImageRef } from './image-ref.js';
export { createContainerRuntime, RUNTIME_KINDS } from './runtime-factory.js';
export type { ContainerRuntimeOptions, RuntimeKind } from './runtime-factory.js';
export { PodmanRuntime, defaultPodmanSocket } from './podman/podman-runtime.js';
