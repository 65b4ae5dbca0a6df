/**
 * Creates the node's container runtime: Docker (a root daemon) or rootless Podman (docs/deploy-node.md#rootless-podman).
 * Callers depend on the ContainerRuntime interface only.
 */
import type { ContainerRuntime, RegistryCredentials, RuntimeLogger } from './container-runtime.js';
import { DockerRuntime } from './docker/docker-runtime.js';
import { PodmanRuntime } from './podman/podman-runtime.js';

export const RUNTIME_KINDS = ['docker', 'podman'] as const;
export type RuntimeKind = (typeof RUNTIME_KINDS)[number];

export interface ContainerRuntimeOptions {
  /**
   * Engine kind.
   * @default 'docker'
   */
  readonly kind?: RuntimeKind;
  /**
   * Engine socket.
   * @default docker: DOCKER_HOST, else /var/run/docker.sock; podman: $XDG_RUNTIME_DIR/podman/podman.sock
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
  const common = {
    ...(options.socketPath !== undefined ? { socketPath: options.socketPath } : {}),
    ...(options.registries !== undefined ? { registries: options.registries } : {}),
    ...(options.registryTimeoutMs !== undefined ? { registryTimeoutMs: options.registryTimeoutMs } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  };
  if (kind === 'podman') return new PodmanRuntime(common);
  if (kind !== 'docker') throw new Error(`unknown container runtime kind: ${String(kind)}`);
  return new DockerRuntime(common);
}
