import { sql, type Kysely } from 'kysely';
import { SEALED_LOG_HEADER } from '@federa/common';
import type { Database } from '../db/schema.js';

/** What became of a batch of live log (docs/run-logs.md); `stop`: the run takes no more. */
export type LogAppendOutcome =
  | {
      readonly kind: 'appended';
      readonly offset: number;
      readonly stop: boolean;
      /** The length of the stored `log` after this batch; absent when the batch had been taken already. */
      readonly logLength?: number;
    }
  | { readonly kind: 'refused'; readonly offset: number; readonly stop: boolean; readonly reason: string };

/** The note that ends a live log at the cap. */
export const liveLogCapNote = (cap: number): string =>
  `\n[federa server] the live log of this run reached ${cap} characters; the rest is not shown while it runs\n`;

/** A batch to append: plain text, or (encrypted collaboration) sealed pieces holding `plainLength` characters. */
export interface LogBatch {
  readonly offset: number;
  readonly text: string;
  /** Set for a sealed batch: the characters of log it holds, which `offset` and `log_received` count. */
  readonly plainLength?: number;
}

/**
 * Appends a batch to the log of open, active run `id` when its `offset` is what the server has taken for it
 * (`log_received`); a batch sent again after its answer was lost is taken once. At `cap` characters the log ends
 * with one truncation note and takes no more. A sealed batch is never cut (a piece is whole or absent): the first
 * one is preceded by the sealed log's header, and the one that would cross the cap is replaced by the note.
 */
export async function appendRunLog(
  db: Kysely<Database>,
  id: number,
  batch: LogBatch,
  cap: number,
): Promise<LogAppendOutcome> {
  const { offset, text } = batch;
  const sealed = batch.plainLength !== undefined;
  const taken = batch.plainLength ?? text.length;
  const row = await db
    .selectFrom('result')
    .select(['status', 'finished_at', 'log_received', sql<number>`length(coalesce(log, ''))`.as('length')])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return { kind: 'refused', offset: 0, stop: true, reason: 'no such result' };
  const received = Number(row.log_received);
  if (row.finished_at !== null || row.status !== 'active')
    return { kind: 'refused', offset: received, stop: true, reason: 'the run is not active' };
  const length = Number(row.length);
  if (offset !== received) {
    // The same batch again (its answer was lost): taken already.
    if (offset < received && offset + taken <= received)
      return { kind: 'appended', offset: received, stop: length >= cap };
    return { kind: 'refused', offset: received, stop: false, reason: `expected offset ${received}` };
  }
  if (length >= cap) return { kind: 'appended', offset: received, stop: true };
  const whole = (sealed && length === 0 ? SEALED_LOG_HEADER : '') + text;
  const full = length + whole.length > cap;
  const note = liveLogCapNote(cap);
  const piece = !full
    ? whole
    : sealed
      ? (length === 0 ? SEALED_LOG_HEADER : '') + note.trimStart()
      : text.slice(0, cap - length) + note;
  const written = await db
    .updateTable('result')
    .set({
      log: sql<string>`coalesce(log, '') || ${piece}`,
      log_received: sql<number>`log_received + ${taken}`,
    })
    .where('id', '=', id)
    .where('finished_at', 'is', null)
    .where('log_received', '=', offset)
    .executeTakeFirst();
  if (Number(written.numUpdatedRows) === 0)
    return { kind: 'refused', offset: received, stop: false, reason: 'the run changed meanwhile' };
  return { kind: 'appended', offset: received + taken, stop: full, logLength: length + piece.length };
}

/** How much of run `id`'s live log the server has taken (`log_received`): where the next batch starts. */
export async function logReceived(db: Kysely<Database>, id: number): Promise<number | undefined> {
  const row = await db.selectFrom('result').select('log_received').where('id', '=', id).executeTakeFirst();
  return row ? Number(row.log_received) : undefined;
}
