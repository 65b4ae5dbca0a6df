/**
 * `run_log` from a node (docs/run-logs.md, docs/socket-protocol.md#events-from-clients): the next batch of an active
 * run's log, appended to the run's `log` and acknowledged with where the node's next batch starts. The node waits
 * for the answer before it sends more (back-pressure); each run's live log ends at the configured cap. Each append
 * is announced to the run's audience as `run_log_update` (ids and length only, never log text).
 */
import { isSealedBatch, type RunLogAck } from '@federa/common';
import type { AppContext } from '../context.js';
import { findResult } from '../repositories/result.js';
import { appendRunLog } from '../repositories/run-log.js';
import { findCollaboration } from '../repositories/collaboration.js';
import { announceRunLog } from '../runs/run-log-events.js';
import type { SocketIdentity } from './types.js';

/** The longest batch a node may send (characters); a node sends 16 KiB at most. */
export const MAX_LOG_BATCH = 256 * 1024;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export async function receiveRunLog(
  ctx: AppContext,
  node: Extract<SocketIdentity, { kind: 'node' }>,
  batch: unknown,
): Promise<RunLogAck> {
  const b = (typeof batch === 'object' && batch !== null ? batch : {}) as Record<string, unknown>;
  if (!isCount(b.result_id) || !isCount(b.offset) || typeof b.text !== 'string')
    return { ok: false, offset: 0, stop: true, error: 'run_log needs {result_id, offset, text}' };
  if (b.text.length > MAX_LOG_BATCH)
    return { ok: false, offset: b.offset, error: `a batch holds at most ${MAX_LOG_BATCH} characters` };
  if (b.plain_length !== undefined && !isCount(b.plain_length))
    return { ok: false, offset: b.offset, stop: true, error: 'plain_length must be a count of characters' };
  try {
    const run = await findResult(ctx.dbh.db, b.result_id);
    if (
      !run ||
      run.collaboration_id === null ||
      run.organization_id !== node.organizationId ||
      run.collaboration_id !== node.collaborationId
    ) {
      ctx.log.warn(
        { event: 'socket.run_log_refused', node_id: node.id, result_id: b.result_id },
        'run_log for a result of another node ignored',
      );
      return { ok: false, offset: 0, stop: true, error: `result ${b.result_id} is not a run of this node` };
    }
    // An encrypted collaboration's logs are sealed for the task's initiator: plain text is never stored there.
    const encrypted = Boolean((await findCollaboration(ctx.dbh.db, run.collaboration_id))?.encrypted);
    const sealed = b.plain_length !== undefined;
    if (encrypted !== sealed || (sealed && !isSealedBatch(b.text))) {
      ctx.log.warn(
        { event: 'socket.run_log_refused', node_id: node.id, result_id: run.id, encrypted, sealed },
        'run_log batch in the wrong form for its collaboration refused',
      );
      return {
        ok: false,
        offset: b.offset,
        stop: true,
        error: encrypted
          ? 'this collaboration is encrypted: a batch must be sealed pieces for the task initiator with plain_length (docs/run-logs.md)'
          : 'this collaboration is not encrypted: send the log as plain text without plain_length',
      };
    }
    const cap = ctx.config.run_log_max_kb * 1024;
    const outcome = await appendRunLog(
      ctx.dbh.db,
      run.id,
      { offset: b.offset, text: b.text, ...(sealed ? { plainLength: b.plain_length } : {}) },
      cap,
    );
    if (outcome.kind === 'appended') {
      // Clients following this log read it again through GET /result/{id}, which checks who may see it.
      if (outcome.logLength !== undefined)
        announceRunLog(ctx, run, {
          result_id: run.id,
          task_id: run.task_id,
          offset: outcome.logLength,
        });
      return { ok: true, offset: outcome.offset, stop: outcome.stop };
    }
    return { ok: false, offset: outcome.offset, stop: outcome.stop, error: outcome.reason };
  } catch (error) {
    ctx.log.error(
      { err: error, event: 'socket.run_log_failed', node_id: node.id, result_id: b.result_id },
      'could not append a run log batch',
    );
    return { ok: false, offset: b.offset, error: 'the server could not store the batch; send it again' };
  }
}
