/**
 * Names of a node's Docker objects and the places inside the node container, spelled once for the node daemon
 * (which makes them) and `vnode` (which starts the node container and cleans up after it):
 * `<prefix>-<node>-…` (docs/container-environment.md#names-labels-and-networks).
 */

/** The prefix of a node's Docker objects unless its configuration names another (`docker_prefix`). */
export const DEFAULT_DOCKER_PREFIX = 'federa';

/** Which node's objects: its prefix and its name. */
export interface NodeNames {
  readonly prefix: string;
  readonly node: string;
}

/** Private (internal) algorithm network of the node. */
export const networkName = (n: NodeNames): string => `${n.prefix}-${n.node}-net`;
/** Data volume of a node running outside Docker (input, output, token, copied file databases). */
export const dataVolumeName = (n: NodeNames): string => `${n.prefix}-${n.node}-vol`;
/** Temporary volume shared by every algorithm of one run id on this node. */
export const tmpVolumeName = (n: NodeNames, runId: number): string => `${n.prefix}-${n.node}-${runId}-tmpvol`;
/** The node's VPN client container. */
export const vpnClientName = (n: NodeNames): string => `${n.prefix}-${n.node}-vpn-client`;

/** True for a run volume of this node: the run id being digits keeps node `a` from matching node `a-2`'s volumes. */
export const isTmpVolumeOf = (volume: string, n: NodeNames): boolean =>
  volume.startsWith(`${n.prefix}-${n.node}-`) &&
  /^\d+-tmpvol$/.test(volume.slice(`${n.prefix}-${n.node}-`.length));

/** Fixed places inside the node container (`vnode start` mounts them; `vnode-local --dockerized` reads them). */
export const NODE_CONTAINER_PATHS = {
  config: '/mnt/config',
  data: '/mnt/data',
  log: '/mnt/log',
  vpn: '/mnt/vpn',
  /** The node's audit log: `<host data folder>/audit`, never in the data volume algorithms see (docs/audit.md). */
  audit: '/mnt/audit',
  /** Results held for the data officer: `<host data folder>/review`, read and decided by `vnode review` (docs/output-control.md). */
  review: '/mnt/review',
  privateKey: '/mnt/private_key.pem',
  /** Where `vnode start` mounts file databases and the private key. */
  mounts: '/mnt',
} as const;

/**
 * Where node `nodeName`, keeping its runs' logs (`share_logs: false`, docs/run-logs.md), writes the log of run
 * `resultId`, inside its log folder (the host's, mounted at NODE_CONTAINER_PATHS.log in the node container; nodes
 * may share that folder); `vnode logs` reads it there.
 */
export const keptRunLogPath = (nodeName: string, resultId: number): string =>
  `run-logs/${nodeName}/${resultId}.log`;
