/**
 * Which container engine runs the node's algorithms (`container_runtime`, docs/deploy-node.md#rootless-podman), and
 * the options that only one engine can honour: a configuration asking Podman for a Docker-only one is refused by
 * name rather than left to fail, or be ignored, at the first run.
 */
import { ConfigError } from '@federa/common';

import type { RawNodeConfig } from './schema.js';

export interface RuntimeConfig {
  readonly kind: 'docker' | 'podman';
  /** Podman's API socket; undefined = the runtime's default (Docker: DOCKER_HOST or /var/run/docker.sock). */
  readonly socketPath: string | undefined;
}

/** Keys (dotted) that only Docker can honour, and why, as the refusal says. */
const DOCKER_ONLY: ReadonlyArray<{ key: string; set: (raw: RawNodeConfig) => boolean; why: string }> = [
  {
    key: 'algorithm_device_requests.gpu',
    set: (raw) => raw.algorithm_device_requests?.gpu === true,
    why: "GPUs are handed to containers through Docker's device requests, which Podman's Docker API does not honour",
  },
  {
    key: 'vpn_subnet',
    set: (raw) => typeof raw.vpn_subnet === 'string' && raw.vpn_subnet !== '',
    why: "the VPN between algorithms has not been run whole on rootless Podman: its parts (a tun device, VXLAN links, NAT in a rootless container) work, but the VPN client's way to the VPN server and the runs' routes through the user's network namespace are unverified, and a node would otherwise find out only at its first VPN run",
  },
];

/**
 * `env.FEDERA_CONTAINER_RUNTIME` is how `vnode start --runtime podman` hands its choice to the node when the file
 * names none; the file's key wins (the CLI refuses a contradiction before it gets here).
 */
export function normaliseRuntime(
  raw: RawNodeConfig,
  file: string,
  env: Readonly<Record<string, string | undefined>> = {},
): RuntimeConfig {
  const fromEnv = env['FEDERA_CONTAINER_RUNTIME'];
  if (fromEnv !== undefined && fromEnv !== 'docker' && fromEnv !== 'podman') {
    throw new ConfigError(file, `FEDERA_CONTAINER_RUNTIME must be docker or podman, not '${fromEnv}'`);
  }
  const kind = raw.container_runtime ?? fromEnv ?? 'docker';
  if (kind === 'docker' && raw.podman_socket !== undefined) {
    throw new ConfigError(
      file,
      "podman_socket is set but container_runtime is not 'podman'",
      'podman_socket',
    );
  }
  if (kind === 'podman') {
    for (const option of DOCKER_ONLY) {
      if (option.set(raw)) {
        throw new ConfigError(
          file,
          `${option.key} works only with container_runtime: docker (${option.why}); remove it or choose Docker`,
          option.key,
        );
      }
    }
  }
  return { kind, socketPath: kind === 'podman' ? raw.podman_socket : undefined };
}
