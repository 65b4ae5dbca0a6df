/**
 * One run as the node follows it (result, task and run ids, image, container), and the small things every step of
 * a run uses: its log, the timing marks, the node's notes in the run's log, status events.
 */
import type { Logger } from 'pino';

import { refId, type WireResultWithTask } from '../server-client/wire.js';
import { algorithmContainerName, type NodeNames } from './naming.js';
import type { RunManagerOptions } from './run-options.js';
import type { RunStatusValue } from './run-status.js';

export interface RunInfo {
  readonly resultId: number;
  readonly taskId: number;
  readonly runId: number;
  readonly parentId: number | null;
  readonly image: string;
  readonly containerName: string;
  readonly startedAtMs: number;
  /** The task's initiating organization, when known from the listing. */
  readonly initiator?: number;
  /** The task's initiating user, when known from the listing. */
  readonly userId?: number;
  /** Milliseconds since startedAtMs at which each step ended (logged with run.finished). */
  readonly marks?: Record<string, number>;
  /** The node's notes for the run's log (a database served by `default`), put before the algorithm's output. */
  readonly notes?: string[];
  /** `v4`: the task was made on the server's vantage6 4.x surface; its algorithm gets the proxy's 4.x path. */
  readonly api?: 'v4';
  /** The network helper whose namespace the container uses (removed with it). */
  helper?: string;
}

/** A run taken on now, from an open result with its task (ids checked by task-check.ts's runIds). */
export function newRun(
  names: NodeNames,
  ids: { resultId: number; taskId: number; runId: number },
  item: WireResultWithTask,
  containerName = algorithmContainerName(names, ids.resultId),
): RunInfo {
  const task = item.task as Partial<WireResultWithTask['task']>;
  return {
    resultId: ids.resultId,
    taskId: ids.taskId,
    runId: ids.runId,
    parentId: refId(task.parent ?? undefined) ?? null,
    image: typeof task.image === 'string' ? task.image : '',
    ...(typeof task.initiator === 'number' ? { initiator: task.initiator } : {}),
    ...(typeof task.init_user === 'number' ? { userId: task.init_user } : {}),
    ...(task.api === 'v4' ? { api: 'v4' as const } : {}),
    containerName,
    startedAtMs: Date.now(),
    marks: {},
    notes: [],
  };
}

/** The node's log, with the run's ids on every line. */
export const runLog = (log: Logger, run: { resultId: number; taskId: number; runId: number }): Logger =>
  log.child({ result_id: run.resultId, task_id: run.taskId, run_id: run.runId });

/** Records that `step` ended now (milliseconds since the run was taken on). */
export const mark = (run: RunInfo, step: string): void => {
  if (run.marks) run.marks[step] = Date.now() - run.startedAtMs;
};

/**
 * A line the node adds to a run's log, told apart from the algorithm's own output: it begins with `[federa node]`,
 * which no line of the container's does (container-lines.ts), and holds no line break of its own. What it quotes
 * (a method name, an error message, all of which a task may choose) has its line breaks and other control
 * characters written as escapes, so it cannot start a line that looks like another note.
 */
export const nodeNote = (text: string): string =>
  `[federa node] ${text.replace(/[\u0000-\u0008\u000a-\u001f\u007f\u0085\u2028\u2029]/g, escapeControl)}\n`;

const escapeControl = (c: string): string =>
  c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `algorithm_status_change` for the run (docs/socket-protocol.md), from this node. */
export function emitRunStatus(
  options: Pick<RunManagerOptions, 'identity' | 'emitStatus'>,
  run: { resultId: number; taskId: number; parentId: number | null },
  status: RunStatusValue,
): void {
  const { identity } = options;
  options.emitStatus({
    node_id: identity.nodeId,
    status,
    result_id: run.resultId,
    task_id: run.taskId,
    collaboration_id: identity.collaborationId,
    organization_id: identity.organizationId,
    parent_id: run.parentId,
  });
}
