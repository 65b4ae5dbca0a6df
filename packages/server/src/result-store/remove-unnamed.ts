import type { Kysely } from 'kysely';

import type { Database } from '../db/schema.js';
import { namedOutputs } from '../repositories/result.js';
import { heldNamedOnly } from '../repositories/result-held.js';
import { outputKey, type ResultStore } from './result-store.js';

/**
 * Removes from the store every upload of the runs `resultIds` except the output a run's report named
 * (`result_stored`): what a run that finished, was killed or was cancelled leaves behind (docs/large-results.md).
 * A named output is never removed, whatever run it belongs to.
 */
export async function removeUnnamedUploads(
  db: Kysely<Database>,
  store: ResultStore,
  resultIds: readonly number[],
): Promise<void> {
  if (resultIds.length === 0) return;
  const named = await namedOutputs(db, resultIds);
  for (const id of new Set(resultIds)) {
    const sha256 = named.get(id);
    // One look at the run's own uploads, whatever the store holds (docs/large-results.md#the-result-store).
    await store.deleteRunOutputs(id, sha256 === undefined ? undefined : outputKey(id, sha256));
  }
  await heldNamedOnly(db, resultIds);
}
