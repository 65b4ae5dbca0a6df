/**
 * The end of a run: its report made once, kept in the run store before it is sent, sent until the server takes it,
 * and the run remembered as finished so that a listing fetched before the report does not start it again
 * (docs/reliability.md).
 */
import type { Logger } from 'pino';

import type { WireResult } from '../server-client/wire.js';
import { HELPER_LABEL } from './network-helpers.js';
import { removeRunFiles } from './run-files.js';
import { emitRunStatus, mark, nodeNote, runLog, type RunInfo } from './run-info.js';
import type { RunManagerOptions } from './run-options.js';
import type { RecipientKey, RunOutcome, RunReporter } from './run-reporter.js';
import { RunStatus } from './run-status.js';
import { auditRunEnd } from './run-audit.js';
import type { RunRecord, StoredReport } from './run-store.js';

/** How many finished result ids are remembered. */
const FINISHED_MEMORY = 10_000;

export class RunFinisher {
  readonly #o: RunManagerOptions;
  readonly #reporter: RunReporter;
  /** Results this process reported: a listing fetched before the report must not start them again. */
  readonly #finished = new Set<number>();

  constructor(options: RunManagerOptions, reporter: RunReporter) {
    this.#o = options;
    this.#reporter = reporter;
  }

  /** Whether this process finished (reported, or ended on request) the result. */
  has(resultId: number): boolean {
    return this.#finished.has(resultId);
  }

  /** Remembers the result as finished (the oldest is forgotten past FINISHED_MEMORY). */
  remember(resultId: number): void {
    this.#finished.add(resultId);
    if (this.#finished.size > FINISHED_MEMORY)
      this.#finished.delete(this.#finished.values().next().value as number);
  }

  /** Reports the run's outcome (kept first, then delivered), forgets its record and logs run.finished. */
  async finish(run: RunInfo, rlog: Logger, outcome: RunOutcome, key?: Promise<RecipientKey>): Promise<void> {
    emitRunStatus(this.#o, run, outcome.status);
    await auditRunEnd(this.#o, run, outcome);
    const report = await this.#reporter.prepare(run.resultId, outcome, run.initiator, key);
    this.#o.traces?.reported(outcome.status);
    if (report) {
      // Kept before it is sent: a node that stops now sends it again at its next start.
      await this.#keepReport(run, report);
      const deliver = (): Promise<boolean> => this.#reporter.deliver(run.resultId, report);
      await (this.#o.traces ? this.#o.traces.step('report', deliver) : deliver());
    }
    this.remember(run.resultId);
    await this.#o.store.remove(run.resultId);
    const level = outcome.status === RunStatus.completed ? 'info' : 'warn';
    mark(run, 'reported');
    rlog[level](
      {
        event: 'run.finished',
        status: outcome.status,
        duration_ms: Date.now() - run.startedAtMs,
        output_bytes: outcome.outputFile?.size ?? outcome.output.length,
        steps_ms: run.marks,
        ...(outcome.reason ? { reason: outcome.reason } : {}),
      },
      'run finished',
    );
  }

  async #keepReport(run: RunInfo, report: StoredReport): Promise<void> {
    const { store } = this.#o;
    if (store.has(run.resultId)) return store.update(run.resultId, { phase: 'reporting', report });
    return store.put({
      resultId: run.resultId,
      taskId: run.taskId,
      runId: run.runId,
      image: run.image,
      containerName: run.containerName,
      phase: 'reporting',
      since: new Date(run.startedAtMs).toISOString(),
      report,
    });
  }

  /**
   * After a restart: a finished run's kept report is sent again, then what is left of the run is removed: its
   * container, and the network helper whose namespace the container used (found by the container's label, since
   * the restarted node has no other record of it; left alone, the helper ran on with nothing to serve).
   */
  async redeliver(record: RunRecord, report: StoredReport): Promise<void> {
    const { runtime, store, log, volumeDir } = this.#o;
    const accepted = await this.#reporter.deliver(record.resultId, report);
    const left = await runtime.inspectContainer(record.containerName).catch(() => undefined);
    await runtime.removeContainerIfExists(record.containerName).catch(() => false);
    const helper = left?.labels[HELPER_LABEL];
    if (helper) await runtime.removeContainerIfExists(helper).catch(() => false);
    await removeRunFiles(volumeDir, record.resultId).catch(() => undefined);
    this.remember(record.resultId);
    await store.remove(record.resultId);
    runLog(log, record).info(
      { event: 'run.finished', status: report.status, redelivered: true, accepted },
      'the kept report of a finished run was sent again',
    );
  }

  /** A recorded run whose container is gone after it started: report it lost if the server still has it open. */
  async reportLost(record: RunRecord): Promise<void> {
    const { rest, log } = this.#o;
    const res = await rest.request<WireResult>('GET', `/result/${record.resultId}`, { allowError: true });
    const run: RunInfo = { ...record, parentId: null, startedAtMs: Date.parse(record.since) || Date.now() };
    if (res.status > 210 || res.body.finished_at) {
      await this.#o.store.remove(record.resultId);
      return;
    }
    const reason = 'the node stopped during this run and its container no longer exists';
    await this.finish(run, runLog(log, record), {
      status: RunStatus.unknownError,
      output: Buffer.alloc(0),
      log: nodeNote(`${reason}; the run was not completed. Create the task again to retry it.`),
      reason,
    });
  }
}
