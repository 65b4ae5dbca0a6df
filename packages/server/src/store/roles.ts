/**
 * The store's own roles (docs/store.md#reviewers-and-store-managers), held by store users whatever their rules on their server:
 * - viewer: reads approved algorithms (every user of a server the store trusts is one);
 * - developer: submits algorithms and changes their own while in review;
 * - reviewer: is assigned reviews, approves or rejects;
 * - store manager: assigns reviewers, sets policies and roles, invalidates and deletes algorithms.
 */
export const STORE_ROLES = ['viewer', 'developer', 'reviewer', 'store manager'] as const;
export type StoreRole = (typeof STORE_ROLES)[number];

export const ROLE_DESCRIPTIONS: Record<StoreRole, string> = {
  viewer: 'Reads the approved algorithms.',
  developer: 'Submits algorithms and changes their own while they are in review.',
  reviewer: 'Reviews the algorithms assigned to them: approves or rejects with a comment.',
  'store manager': 'Assigns reviewers, sets policies and roles, invalidates and deletes algorithms.',
};

/** Parses the roles a store user row keeps (JSON list), ignoring unknown names. */
export function storedRoles(json: string): StoreRole[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed)
      ? parsed.filter((r): r is StoreRole => (STORE_ROLES as readonly unknown[]).includes(r))
      : [];
  } catch {
    return [];
  }
}
