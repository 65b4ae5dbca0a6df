/** Names and labels of the Docker objects of a node started by `vnode start` (docs/cli.md#vnode-start, our prefix). */
import type { Scope } from '../paths.js';

export const NODE_PREFIX = 'federa';

export const nodeContainerName = (name: string, scope: Scope): string => `${NODE_PREFIX}-${name}-${scope}`;
export const nodeDataVolumeName = (name: string, scope: Scope): string =>
  `${NODE_PREFIX}-${name}-${scope}-vol`;
export const nodeVpnVolumeName = (name: string, scope: Scope): string =>
  `${NODE_PREFIX}-${name}-${scope}-vpn-vol`;

/**
 * Run volumes of one node: `<prefix>-<node>-<run id>-tmpvol` (what the node daemon creates for a run, see
 * packages/node/src/runs/naming.ts). The run id being digits keeps node `a` from matching node `a-2`'s volumes.
 */
export const isRunVolumeOf = (volume: string, name: string): boolean =>
  volume.startsWith(`${NODE_PREFIX}-${name}-`) &&
  /^\d+-tmpvol$/.test(volume.slice(`${NODE_PREFIX}-${name}-`.length));

export const isRunVolume = (volume: string): boolean => volume.endsWith('tmpvol');

/** Every Docker volume that belongs to a node: its data and VPN volumes (both scopes), its own data volume when it ran
 * outside Docker, and its run volumes. */
export const isVolumeOf = (volume: string, name: string): boolean =>
  isRunVolumeOf(volume, name) ||
  [
    `${NODE_PREFIX}-${name}-vol`,
    ...(['user', 'system'] as const).flatMap((s) => [
      nodeDataVolumeName(name, s),
      nodeVpnVolumeName(name, s),
    ]),
  ].includes(volume);

export const TYPE_LABEL = 'federa-type';

/** Where things are inside the node container. */
export const IN_CONTAINER = {
  config: '/mnt/config',
  data: '/mnt/data',
  log: '/mnt/log',
  vpn: '/mnt/vpn',
  /** The node's audit log: `<host data folder>/audit`, never in the data volume algorithms see (docs/audit.md). */
  audit: '/mnt/audit',
  privateKey: '/mnt/private_key.pem',
  dockerSocket: '/var/run/docker.sock',
} as const;
