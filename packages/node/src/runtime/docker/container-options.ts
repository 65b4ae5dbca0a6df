/**
 * The runtime's ContainerSpec in the engine's terms (create options), and the engine's container states in the
 * runtime's.
 */
import type Docker from 'dockerode';
import { dockerHostOptions } from '@federa/common';

import type { ContainerSpec, ContainerStatus } from '../container-runtime.js';

/** A network of the node's own (not `none`, `host`, the default `bridge` or another container's namespace). */
const isNamedNetwork = (network: string | undefined): network is string =>
  network !== undefined &&
  network !== 'none' &&
  network !== 'host' &&
  network !== 'bridge' &&
  !network.startsWith('container:');

export function containerCreateOptions(spec: ContainerSpec): Docker.ContainerCreateOptions {
  const network = spec.network;
  return {
    name: spec.name,
    Image: spec.image,
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    Labels: { ...spec.labels },
    ...(spec.cmd !== undefined ? { Cmd: [...spec.cmd] } : {}),
    ...(spec.entrypoint !== undefined ? { Entrypoint: [...spec.entrypoint] } : {}),
    ...(spec.workingDir !== undefined ? { WorkingDir: spec.workingDir } : {}),
    ...(spec.user !== undefined ? { User: spec.user } : {}),
    ...(spec.hostname !== undefined ? { Hostname: spec.hostname } : {}),
    Tty: false,
    AttachStdout: false,
    AttachStderr: false,
    HostConfig: {
      Mounts: spec.mounts.map((m) => ({
        Type: m.type,
        Source: m.source,
        Target: m.target,
        ReadOnly: m.readOnly ?? false,
      })),
      ...(network !== undefined ? { NetworkMode: network } : {}),
      ...dockerHostOptions(spec),
      ...(spec.gpus === true ? { DeviceRequests: [{ Driver: '', Count: -1, Capabilities: [['gpu']] }] } : {}),
      ...(spec.sysctls !== undefined ? { Sysctls: { ...spec.sysctls } } : {}),
    },
    ...(isNamedNetwork(network)
      ? {
          NetworkingConfig: {
            EndpointsConfig: { [network]: { Aliases: [...(spec.networkAliases ?? [])] } },
          },
        }
      : {}),
  };
}

/** The engine's state string; anything unknown counts as 'dead'. */
export function toStatus(value: string | undefined): ContainerStatus {
  switch (value) {
    case 'created':
    case 'running':
    case 'paused':
    case 'restarting':
    case 'removing':
    case 'exited':
    case 'dead':
      return value;
    // Podman's own states: `stopped` is a process that has ended, before Podman's clean-up makes it `exited`;
    // `configured` a container created but not yet prepared to start.
    case 'stopped':
      return 'exited';
    case 'configured':
      return 'created';
    default:
      return 'dead';
  }
}
