/** Names and labels of the Docker objects of a node started by `vnode start` (docs/cli.md#vnode-start, our prefix). */
import {
  DEFAULT_DOCKER_PREFIX,
  NODE_CONTAINER_PATHS,
  dataVolumeName,
  isTmpVolumeOf,
  type NodeNames,
} from '@federa/common';
import type { Scope } from '../paths.js';

export const NODE_PREFIX = DEFAULT_DOCKER_PREFIX;
/** The names the node daemon gives its own objects, for a node of this CLI (default prefix). */
export const nodeNames = (name: string): NodeNames => ({ prefix: NODE_PREFIX, node: name });

export const nodeContainerName = (name: string, scope: Scope): string => `${NODE_PREFIX}-${name}-${scope}`;
export const nodeDataVolumeName = (name: string, scope: Scope): string =>
  `${NODE_PREFIX}-${name}-${scope}-vol`;
export const nodeVpnVolumeName = (name: string, scope: Scope): string =>
  `${NODE_PREFIX}-${name}-${scope}-vpn-vol`;

/** Run volumes of one node: what the node daemon creates for a run (`<prefix>-<node>-<run id>-tmpvol`). */
export const isRunVolumeOf = (volume: string, name: string): boolean =>
  isTmpVolumeOf(volume, nodeNames(name));

export const isRunVolume = (volume: string): boolean => volume.endsWith('tmpvol');

/** Every Docker volume that belongs to a node: its data and VPN volumes (both scopes), its own data volume when it ran
 * outside Docker, and its run volumes. */
export const isVolumeOf = (volume: string, name: string): boolean =>
  isRunVolumeOf(volume, name) ||
  [
    dataVolumeName(nodeNames(name)),
    ...(['user', 'system'] as const).flatMap((s) => [
      nodeDataVolumeName(name, s),
      nodeVpnVolumeName(name, s),
    ]),
  ].includes(volume);

export const TYPE_LABEL = 'federa-type';

/** Where things are inside the node container. */
export const IN_CONTAINER = {
  ...NODE_CONTAINER_PATHS,
  dockerSocket: '/var/run/docker.sock',
} as const;
