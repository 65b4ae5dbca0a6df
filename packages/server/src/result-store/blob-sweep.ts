import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { formatStored } from '../db/stored-time.js';
import { deleteFreeBlobRow, expiredBlobs } from '../repositories/blob.js';
import { blobKey, type ResultStore } from './result-store.js';

/** What a sweep of expired uploads did; logged as the line `blob_store.swept`. */
export interface BlobSweepReport {
  removed: number;
  bytes_freed: number;
}

/**
 * Removes the uploads to `/blobstream` that no task has taken within `expiryMs` of their start
 * (`result_store.blob_expiry_minutes`, docs/vantage6-4.md#uploads-to-blobstream), and those whose run was deleted:
 * the row first, so that a task taking the upload meanwhile keeps it.
 */
export async function sweepBlobs(o: {
  db: () => Kysely<Database>;
  store: ResultStore;
  expiryMs: number;
  now?: () => number;
}): Promise<BlobSweepReport> {
  const before = formatStored(new Date((o.now ?? Date.now)() - o.expiryMs));
  const report: BlobSweepReport = { removed: 0, bytes_freed: 0 };
  for (;;) {
    const batch = await expiredBlobs(o.db(), before, 500);
    for (const blob of batch) {
      // Unless a task took it meanwhile.
      if (!(await deleteFreeBlobRow(o.db(), blob.uuid))) continue;
      await o.store.delete(blobKey(blob.uuid));
      report.removed += 1;
      report.bytes_freed += Number(blob.size ?? 0);
    }
    if (batch.length < 500) return report;
  }
}
