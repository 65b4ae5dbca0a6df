import type { NodeInfoPayload } from '@federa/common';
import type { NodeConfig } from './config/node-config.js';

/**
 * What the node tells the server of its configuration (`node_info_update`, docs/socket-protocol.md) when it shares
 * it: its encryption, its policies, and its databases' labels and types as vantage6 4.x nodes send them; the
 * server's 4.x surface refuses a task naming a label the node does not have (docs/vantage6-4.md). Never a URI.
 */
export function nodeInfo(
  config: Pick<
    NodeConfig,
    'encryption' | 'allowedAlgorithms' | 'allowedUsers' | 'allowedOrganizations' | 'databases'
  >,
): NodeInfoPayload {
  return {
    encryption: config.encryption.enabled,
    allowed_algorithms: config.allowedAlgorithms ? [...config.allowedAlgorithms] : 'all',
    ...(config.allowedUsers ? { allowed_users: [...config.allowedUsers] } : {}),
    ...(config.allowedOrganizations ? { allowed_orgs: [...config.allowedOrganizations] } : {}),
    database_labels: config.databases.map((d) => d.label),
    database_types: config.databases.map((d) => d.type ?? 'csv'),
  };
}
