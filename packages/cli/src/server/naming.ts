/** Names and labels of the Docker objects of a server started by `vserver start`. */
import type { Scope } from '../paths.js';

export const serverContainerName = (name: string, scope: Scope): string => `federa-${name}-${scope}-server`;
export const serverNetworkName = (name: string, scope: Scope): string => `federa-${name}-${scope}-network`;

export const TYPE_LABEL = 'federa-type';
/** Labels through which `vserver version` and `list` find a running server's address. */
export const LABELS = {
  name: 'name',
  system: 'system',
  environment: 'federa.environment',
  hostIp: 'federa.host-ip',
  hostPort: 'federa.host-port',
  apiPath: 'federa.api-path',
} as const;

/** The port the server listens on inside its container. */
export const CONTAINER_PORT = 5000;
