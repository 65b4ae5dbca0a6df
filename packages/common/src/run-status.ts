/**
 * The statuses of a run (one result of a task) and the moves between them (docs/run-statuses.md). The server
 * refuses a report that moves a run backwards with this table; the node never sends one.
 *
 * The values are the strings vantage6 3.6+ nodes send and 3.x clients understand, plus the precise ones of vantage6
 * 4.x and Federa (`unexpected output`, `cancelled`, and the data owner's `awaiting release`, `output refused`,
 * `release refused`). A 3.x client takes every value other than `pending`, `initializing`, `active` and
 * `completed` as a failure, so the new finished ones read correctly there too; `awaiting release` has no finish time,
 * so a 3.x client waiting for the task keeps waiting.
 */
export const RunStatus = {
  /** Created by the server; no node has taken it on. */
  pending: 'pending',
  /** A node took it on and prepares it (input, policies, image, token). */
  initializing: 'initializing',
  /** Its container runs. */
  active: 'active',
  /** The container exited 0; its output is held at the node until the node's data officer releases or refuses it. */
  awaitingRelease: 'awaiting release',
  /** The container exited 0 and wrote its output. */
  completed: 'completed',
  /** A failure not told by a more precise status (e.g. input that cannot be decrypted). */
  failed: 'failed',
  /** The container did not start (after the retry). */
  startFailed: 'start failed',
  /** The image is neither on the node nor pullable ("no such image"). */
  noSuchImage: 'non-existing Docker image',
  /** The container exited with a non-zero code. */
  crashed: 'crashed',
  /** Stopped by a kill request (`POST /kill/task`, `POST /kill/node/tasks`). */
  killed: 'killed by user',
  /** Refused by the node's policies (allowed images, users, organizations). */
  notAllowed: 'not allowed',
  /** The container disappeared (the node lost it). */
  unknownError: 'unknown error',
  /** The container exited 0 without the output file. */
  unexpectedOutput: 'unexpected output',
  /** Never started: a sibling run failed and the task asked to cancel the rest (`cancel_on_failure`). */
  cancelled: 'cancelled',
  /** The node's output policy refused the output (size, format, a disclosure check, not what it was declared to be). */
  outputRefused: 'output refused',
  /** The node's data officer refused to release the held output (or it expired undecided); the log has the note. */
  releaseRefused: 'release refused',
} as const;

export type RunStatusValue = (typeof RunStatus)[keyof typeof RunStatus];

export const RUN_STATUSES: readonly RunStatusValue[] = Object.values(RunStatus);

/** Statuses of a run that is still going, in the order a run passes them. */
export const OPEN_RUN_STATUSES: readonly RunStatusValue[] = [
  RunStatus.pending,
  RunStatus.initializing,
  RunStatus.active,
  RunStatus.awaitingRelease,
];

/**
 * Run statuses that make their task `active` (docs/run-statuses.md): a run held for the data owner's release is not
 * done, and the 3.x task statuses have no word of their own for it.
 */
export const ACTIVE_LIKE_RUN_STATUSES: readonly RunStatusValue[] = [
  RunStatus.active,
  RunStatus.awaitingRelease,
];

export const isRunStatus = (s: unknown): s is RunStatusValue =>
  typeof s === 'string' && (RUN_STATUSES as readonly string[]).includes(s);

/** Whether a run with this status has ended (every known status but the open ones). */
export const isFinishedRunStatus = (s: string): boolean =>
  isRunStatus(s) && !(OPEN_RUN_STATUSES as readonly string[]).includes(s);

/** Whether a run with this status ended without a result (finished, and not `completed`). */
export const isFailedRunStatus = (s: string): boolean => isFinishedRunStatus(s) && s !== RunStatus.completed;

/** Position along the way of a run: open statuses in their order, every finished status last. */
const stage = (s: RunStatusValue): number => {
  const i = (OPEN_RUN_STATUSES as readonly string[]).indexOf(s);
  return i === -1 ? OPEN_RUN_STATUSES.length : i;
};

/**
 * Why a run may not move from `from` to `to`, or `undefined` when it may. Allowed: staying where it is (a report
 * sent again), going forward through pending → initializing → active, and from any open status to any finished
 * one. Refused: any move out of a finished status, any move back, and a status that does not exist.
 */
export function runTransitionRefusal(from: RunStatusValue, to: string): string | undefined {
  if (!isRunStatus(to))
    return `'${to}' is not a run status (one of: ${RUN_STATUSES.map((s) => `'${s}'`).join(', ')})`;
  if (from === to) return undefined;
  if (isFinishedRunStatus(from)) return `a run that has finished ('${from}') never changes its status`;
  if (stage(to) < stage(from)) return `a run never goes back from '${from}' to '${to}'`;
  return undefined;
}
