/**
 * What a node's report (`PATCH /result/{id}`) does to a run (docs/run-statuses.md): the status moves only along the
 * table in common, and `status`, `finished_at` and `complete` always agree. A pure function: the route stores the
 * outcome.
 */
import {
  RunStatus,
  isFailedRunStatus,
  isFinishedRunStatus,
  isRunStatus,
  runTransitionRefusal,
  type RunStatusValue,
} from '@federa/common';

/** An output held in the result store (docs/large-results.md), named by its checksum. */
export interface StoredOutput {
  readonly sha256: string;
  readonly size: number;
}

export interface StoredRun {
  readonly id: number;
  readonly status: string | null;
  readonly finished_at: string | null;
  readonly result: string | null;
  readonly log: string | null;
  /** The output held in the result store instead of `result`. */
  readonly stored: StoredOutput | null;
}

/** The report's fields; timestamps already in the stored form. Absent (`undefined`) is not the same as `null`. */
export interface RunReport {
  readonly started_at?: string | null;
  readonly finished_at?: string | null;
  readonly result?: string | null;
  readonly log?: string | null;
  readonly status?: string | null;
  /** The uploaded output this report makes the run's output (checked by the route: uploaded whole). */
  readonly stored?: StoredOutput | null;
}

export interface RunChanges {
  status?: string;
  started_at?: string | null;
  finished_at?: string | null;
  result?: string | null;
  log?: string | null;
  stored?: StoredOutput | null;
}

export type RunUpdate =
  /** Nothing changes: the report was already taken (a node sends a report again when unsure it arrived). */
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'update'; readonly changes: RunChanges; readonly status: RunStatusValue }
  | { readonly kind: 'refused'; readonly message: string };

/** The status a stored run is in: an empty or unknown legacy value counts as `pending` while the run is open. */
const currentStatus = (run: StoredRun): RunStatusValue =>
  isRunStatus(run.status) ? run.status : RunStatus.pending;

/**
 * A finished run changes no more, with one exception: a run finished by a status alone (the server's kill, or a
 * 3.6+ node's `start failed` before its final report) takes the result and log of one report with that status.
 */
function updateFinished(run: StoredRun, report: RunReport): RunUpdate {
  const to = report.status ?? null;
  const sameStatus = to === null || to === run.status;
  const result = report.result ?? null;
  const log = report.log ?? null;
  const stored = report.stored ?? null;
  if (sameStatus && result === run.result && log === run.log && stored?.sha256 === run.stored?.sha256)
    return { kind: 'unchanged' };
  if (sameStatus && run.result === null && run.log === null && run.stored === null)
    return { kind: 'update', changes: { result, log, stored }, status: currentStatus(run) };
  const reason = runTransitionRefusal(currentStatus(run), to ?? run.status ?? RunStatus.pending);
  return {
    kind: 'refused',
    message:
      to !== null && !sameStatus && reason
        ? `Result ${run.id} cannot go from '${run.status}' to '${to}': ${reason}.`
        : `Result ${run.id} has finished ('${run.status}') and its report can no longer be changed.`,
  };
}

/**
 * vantage6 semantics for an open run: absent `finished_at`, `result` and `log` are cleared; absent `started_at` and
 * `status` are kept. Then: a finished status without `finished_at` gets the server's time; a `finished_at` without a
 * status (3.3–3.5 nodes send none) finishes the run `completed`; a `finished_at` with an open status is refused.
 */
export function planRunUpdate(run: StoredRun, report: RunReport, now: () => string): RunUpdate {
  if (run.finished_at !== null) return updateFinished(run, report);
  const from = currentStatus(run);
  const to = report.status ?? null;
  if (to !== null) {
    const reason = runTransitionRefusal(from, to);
    if (reason)
      return { kind: 'refused', message: `Result ${run.id} cannot go from '${from}' to '${to}': ${reason}.` };
  }
  let status: RunStatusValue = to !== null && isRunStatus(to) ? to : from;
  let finishedAt = report.finished_at ?? null;
  if (finishedAt !== null && !isFinishedRunStatus(status)) {
    if (to !== null)
      return {
        kind: 'refused',
        message: `Result ${run.id}: a report with finished_at needs a finished status, and '${to}' is not one.`,
      };
    status = RunStatus.completed;
  }
  if (finishedAt === null && isFinishedRunStatus(status)) finishedAt = now();
  const changes: RunChanges = {
    finished_at: finishedAt,
    result: report.result ?? null,
    log: report.log ?? null,
    stored: report.stored ?? null,
  };
  if (report.started_at !== undefined) changes.started_at = report.started_at;
  if (status !== run.status) changes.status = status;
  return { kind: 'update', changes, status };
}

/**
 * Whether a run ending with `status` cancels its task's pending runs under `cancel_on_failure`: every failure but a
 * kill (the user's own doing, which reaches the whole task anyway) and a cancellation.
 */
export const failureCancelsSiblings = (status: RunStatusValue): boolean =>
  isFailedRunStatus(status) && status !== RunStatus.killed && status !== RunStatus.cancelled;
