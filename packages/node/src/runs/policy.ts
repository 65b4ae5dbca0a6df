import { imageMatches, parseImagePattern } from './image-policy.js';

/**
 * Node-side policies (docs/node-protocol.md#policies): image allow-list (patterns of image references compared
 * part by part, docs/node.md#image-policies), and allowed users / organizations of the task's initiator.
 */
export interface PolicyConfig {
  readonly allowedAlgorithms: readonly string[] | undefined;
  readonly allowedUsers: readonly number[] | undefined;
  readonly allowedOrganizations: readonly (number | string)[] | undefined;
}

export interface PolicyTask {
  readonly image: string;
  readonly initiator: number;
  readonly init_user?: number | null;
}

export type PolicyVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

/**
 * Whether `image` is one of `patterns` (image-policy.ts: registry, repository, tag and digest compared as parts).
 * A pattern that stands for no image (the node refuses those at start) allows nothing.
 */
export const imageAllowed = (image: string, patterns: readonly string[] | undefined): boolean =>
  patterns === undefined ||
  patterns.length === 0 ||
  patterns.some((text) => {
    const pattern = parseImagePattern(text);
    return typeof pattern !== 'string' && imageMatches(image, pattern);
  });

/**
 * @param orgIdsByName the ids a name of `allowedOrganizations` allows now (organization-pins.ts: exact names,
 *   pinned at the node's start).
 */
export async function checkPolicies(
  task: PolicyTask,
  config: PolicyConfig,
  orgIdsByName: (name: string) => Promise<number[]>,
): Promise<PolicyVerdict> {
  if (!imageAllowed(task.image, config.allowedAlgorithms)) {
    return {
      allowed: false,
      reason: `the image ${task.image} is not in this node's allowed algorithms (${(config.allowedAlgorithms ?? []).join(', ')})`,
    };
  }
  const users = config.allowedUsers ?? [];
  const orgs = config.allowedOrganizations ?? [];
  if (users.length === 0 && orgs.length === 0) return { allowed: true };
  if (task.init_user != null && users.includes(task.init_user)) return { allowed: true };
  for (const org of orgs) {
    if (typeof org === 'number' ? org === task.initiator : (await orgIdsByName(org)).includes(task.initiator))
      return { allowed: true };
  }
  return {
    allowed: false,
    reason: `the task's user (${String(task.init_user ?? 'unknown')}) and organization (${task.initiator}) are not allowed by this node's policies`,
  };
}
