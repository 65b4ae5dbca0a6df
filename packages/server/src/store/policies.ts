import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { policyRows, setPolicies } from '../repositories/store.js';

/** The review policies of a store (docs/store.md#reviewers-and-store-managers) and who may read approved algorithms. */
export interface StorePolicies {
  /** Approving reviews an algorithm needs. */
  min_reviewers: number;
  /** Distinct organizations those reviewers must come from. */
  min_reviewing_organizations: number;
  /** Whether an algorithm's developer may be assigned to review it. */
  assign_review_own_algorithm: boolean;
  /** `public`: anyone, nodes included, reads approved algorithms; `authenticated`: users of trusted servers. */
  algorithm_view: 'public' | 'authenticated';
}

/** vantage6's defaults: two reviewers from two organizations, never the author. */
export const DEFAULT_POLICIES: StorePolicies = {
  min_reviewers: 2,
  min_reviewing_organizations: 2,
  assign_review_own_algorithm: false,
  algorithm_view: 'public',
};

export async function readPolicies(db: Kysely<Database>): Promise<StorePolicies> {
  const policies: StorePolicies = { ...DEFAULT_POLICIES };
  for (const row of await policyRows(db)) {
    if (!(row.key in policies)) continue;
    try {
      (policies as unknown as Record<string, unknown>)[row.key] = JSON.parse(row.value);
    } catch {
      // A value that is not JSON was not written by the store; the default stands.
    }
  }
  return policies;
}

export async function writePolicies(db: Kysely<Database>, changes: Partial<StorePolicies>): Promise<void> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(changes))
    if (value !== undefined) values[key] = JSON.stringify(value);
  await setPolicies(db, values);
}
