/**
 * Creates the node's container runtime. Docker is the only engine for now; callers depend on the
 * ContainerRuntime interface only.
 */
import type { ContainerRuntime, RegistryCredentials, RuntimeLogger } from './container-runtime.js';
import { DockerRuntime } from './docker/docker-runtime.js';

export interface ContainerRuntimeOptions {
  /**
   * Engine kind; only 'docker'.
   * @default 'docker'
   */
  readonly kind?: 'docker';
  /**
   * Docker engine socket.
   * @default DOCKER_HOST, else /var/run/docker.sock
   */
  readonly socketPath?: string;
  /** Registry logins (node config `docker_registries`). Use `login()` to verify them at node start. */
  readonly registries?: readonly RegistryCredentials[];
  /**
   * Time limit for asking a registry about an image, in milliseconds.
   * @default 20000
   */
  readonly registryTimeoutMs?: number;
  readonly logger?: RuntimeLogger;
}

export function createContainerRuntime(options: ContainerRuntimeOptions = {}): ContainerRuntime {
  const kind = options.kind ?? 'docker';
  if (kind !== 'docker') throw new Error(`unknown container runtime kind: ${String(kind)}`);
  return new DockerRuntime({
    ...(options.socketPath !== undefined ? { socketPath: options.socketPath } : {}),
    ...(options.registries !== undefined ? { registries: options.registries } : {}),
    ...(options.registryTimeoutMs !== undefined ? { registryTimeoutMs: options.registryTimeoutMs } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
}
