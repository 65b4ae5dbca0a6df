/**
 * vantage6 4.x nodes' `algorithm_log` (docs/socket-protocol.md#vantage6-4x-clients-and-nodes): a piece of a
 * container's output, `{collaboration_id, run_id, task_id, log}`, sent as it comes and never answered. It is taken
 * into the run's live log as a `run_log` batch would be, with the same checks (a run of this node, active, under
 * the cap) and the same rule for encrypted collaborations: a 4.x node sends plain text, which is never stored
 * there, so it is refused. The pieces of one socket are taken one after the other, in the order they came, since
 * each starts where the log stands.
 */
import type { AppContext } from '../context.js';
import { logReceived } from '../repositories/run-log.js';
import { receiveRunLog } from './run-log.js';
import type { SocketIdentity } from './types.js';

type NodeIdentity = Extract<SocketIdentity, { kind: 'node' }>;

/** A listener of one 4.x node socket's `algorithm_log` events. */
export function algorithmLogListener(ctx: AppContext, node: NodeIdentity): (data: unknown) => void {
  let previous: Promise<void> = Promise.resolve();
  return (data) => {
    previous = previous.then(() => takeAlgorithmLog(ctx, node, data));
  };
}

async function takeAlgorithmLog(ctx: AppContext, node: NodeIdentity, data: unknown): Promise<void> {
  const d = (typeof data === 'object' && data !== null ? data : {}) as Record<string, unknown>;
  const runId = d.run_id;
  if (typeof runId !== 'number' || !Number.isSafeInteger(runId) || runId < 1 || typeof d.log !== 'string') {
    ctx.log.warn(
      { event: 'socket.algorithm_log_invalid', node_id: node.id },
      'algorithm_log without {run_id, log} ignored',
    );
    return;
  }
  try {
    // receiveRunLog checks whose run it is, and refuses an unknown one.
    const offset = (await logReceived(ctx.dbh.db, runId)) ?? 0;
    const answer = await receiveRunLog(ctx, node, { result_id: runId, offset, text: d.log });
    if (!answer.ok)
      ctx.log.debug(
        { event: 'socket.algorithm_log_refused', node_id: node.id, result_id: runId, reason: answer.error },
        'algorithm_log not taken',
      );
  } catch (error) {
    ctx.log.error(
      { err: error, event: 'socket.algorithm_log_failed', node_id: node.id, result_id: runId },
      'could not take an algorithm_log piece',
    );
  }
}
