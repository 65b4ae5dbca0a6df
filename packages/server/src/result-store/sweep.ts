import type { Kysely } from 'kysely';

import type { Database } from '../db/schema.js';
import type { DialectName } from '../db/uri.js';
import { highestResultIdGiven, outputOwners } from '../repositories/result.js';
import { heldNamedOnly } from '../repositories/result-held.js';
import { parseOutputKey, type ResultStore, type StoreEntry } from './result-store.js';

export interface SweepOptions {
  /** The database, asked for at each use (the handle may replace its pool). */
  db: () => Kysely<Database>;
  dialect: DialectName;
  store: ResultStore;
  /** When this server began to start, before it took any upload (milliseconds since the epoch). */
  startedMs: number;
  /** No other instance runs: no upload is under way anywhere but on this one, which took none before `startedMs`. */
  alone: boolean;
  /** `http.output_idle_timeout_ms`: an upload on which no byte moved for this long has been cut by its server. */
  idleMs: number;
  /** Stops the sweep between two entries (the server is closing). */
  signal?: AbortSignal;
  /** @default Date.now */
  now?: () => number;
}

/** What a sweep did; logged as the line `result_store.swept`. */
export interface SweepReport {
  /** Uploads removed: of runs gone, or finished without naming them. */
  removed: number;
  /** Temporaries removed: writes that will never finish. */
  temporaries_removed: number;
  bytes_freed: number;
  /** Uploads kept for runs whose node may still report them. */
  kept_for_open_runs: number;
  /**
   * Uploads kept because this database never had their run: the store is shared with another database, or the
   * database was replaced. Not this server's to judge.
   */
  kept_unknown_runs: number;
  /** Temporaries kept: they may be uploads under way on another instance. */
  temporaries_kept: number;
  /** Whether the sweep stopped before the end (the server closed). */
  stopped: boolean;
  ms: number;
}

/** Entries whose runs are looked up at once. */
const BATCH = 500;

/**
 * The start-up sweep (docs/large-results.md#the-start-up-sweep): removes from the store what no run will ever name.
 * An upload goes when its run is gone (deleted while the server was down; a run this database never had is not
 * judged), was killed, or has finished without naming it (the server stopped between the upload and the report);
 * one whose run is open stays; an output a report named is never removed. A temporary goes when its write cannot finish: it
 * began before this server started and no other instance runs, or no byte reached it for twice the idle limit.
 */
export async function sweepResultStore(o: SweepOptions): Promise<SweepReport> {
  const now = o.now ?? Date.now;
  const began = now();
  const report: SweepReport = {
    removed: 0,
    temporaries_removed: 0,
    bytes_freed: 0,
    kept_for_open_runs: 0,
    kept_unknown_runs: 0,
    temporaries_kept: 0,
    stopped: false,
    ms: 0,
  };
  const remove = async (entry: StoreEntry): Promise<void> => {
    await o.store.remove(entry);
    report.bytes_freed += entry.size;
    if (entry.temporary) report.temporaries_removed += 1;
    else report.removed += 1;
  };
  const highest = await highestResultIdGiven(o.db(), o.dialect);
  let batch: { entry: StoreEntry; resultId: number; sha256: string }[] = [];
  const settle = async (): Promise<void> => {
    const owners = await outputOwners(
      o.db(),
      batch.map((b) => b.resultId),
    );
    const emptied: number[] = [];
    for (const { entry, resultId, sha256 } of batch) {
      const owner = owners.get(resultId);
      if (owner?.named === sha256) continue;
      if (owner?.reportable) report.kept_for_open_runs += 1;
      else if (!owner && resultId > highest) report.kept_unknown_runs += 1;
      else {
        await remove(entry);
        if (owner) emptied.push(resultId);
      }
    }
    await heldNamedOnly(o.db(), emptied);
    batch = [];
  };
  for await (const entry of o.store.list()) {
    if (o.signal?.aborted) {
      report.stopped = true;
      break;
    }
    if (entry.temporary) {
      const dead =
        (o.alone && entry.startedMs < o.startedMs) ||
        (entry.writtenMs !== null && now() - entry.writtenMs > 2 * o.idleMs);
      if (dead) await remove(entry);
      else report.temporaries_kept += 1;
      continue;
    }
    const output = parseOutputKey(entry.name);
    if (!output) continue; // not an output's key: not the server's to remove
    batch.push({ entry, ...output });
    if (batch.length >= BATCH) await settle();
  }
  if (!report.stopped && batch.length > 0) await settle();
  report.ms = now() - began;
  return report;
}
