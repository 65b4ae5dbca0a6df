/**
 * A run's entries in the node's audit log (docs/audit.md): `run.started` before its container starts, with the image
 * actually run by digest (docker inspect), and `run.finished` with its outcome.
 */
import type { WireResultWithTask } from '../server-client/wire.js';
import { requestedDatabases } from '@federa/common';

import { resolveDatabases } from './environment.js';
import type { RunInfo } from './run-info.js';
import type { RunManagerOptions } from './run-options.js';
import type { RunOutcome } from './run-reporter.js';

/** Records `run.started`; returns why the run must not start when that cannot be written. */
export async function auditRunStart(
  o: Pick<RunManagerOptions, 'audit' | 'runtime' | 'config'>,
  run: RunInfo,
  item: WireResultWithTask,
): Promise<string | undefined> {
  if (!o.audit) return undefined;
  const image = await o.runtime.inspectImage(run.image).catch(() => undefined);
  try {
    await o.audit.runStarted({
      resultId: run.resultId,
      taskId: run.taskId,
      runId: run.runId,
      image: run.image,
      imageId: image?.id,
      repoDigests: image?.repoDigests ?? [],
      database: resolveDatabases(requestedDatabases(item.task), o.config.databases)[0]?.label,
      databases: o.config.databases.map((d) => d.label),
      item,
    });
    return undefined;
  } catch (error) {
    return `this node cannot write its audit log, so it runs nothing: ${(error as Error).message}`;
  }
}

/** Records `run.finished` (a failure to write it is logged by the audit log: the run has happened). */
export async function auditRunEnd(
  o: Pick<RunManagerOptions, 'audit'>,
  run: RunInfo,
  outcome: Pick<RunOutcome, 'status' | 'reason'> & { output?: Uint8Array },
): Promise<void> {
  await o.audit?.runFinished({
    resultId: run.resultId,
    taskId: run.taskId,
    runId: run.runId,
    image: run.image,
    status: outcome.status,
    ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
    ...(outcome.output ? { outputBytes: outcome.output.length } : {}),
    ...(run.initiator !== undefined ? { initiator: run.initiator } : {}),
  });
}
