/**
 * Results held for the node's data officer (docs/output-control.md#held-results): kept on disk in the review folder
 * (held-results.ts, fsynced, so a hold survives restarts), reported `awaiting release` with no content, and
 * settled when a decision appears there (written by `vnode review release|refuse`) or the hold expires: a release
 * reports the output as completed (encrypted for the initiator then), a refusal reports `release refused` with the
 * officer's note and nothing of the output or the algorithm's log.
 */
import { join } from 'node:path';
import {
  HELD_OUTPUT_FILE,
  listHeldResults,
  readHeldOutput,
  removeHeldResult,
  writeHeldResult,
  writeReviewDecision,
  type HeldEntry,
  type HeldResult,
} from '@federa/common';

import type { RunFinisher } from '../runs/run-finisher.js';
import { emitRunStatus, nodeNote, runLog, type RunInfo } from '../runs/run-info.js';
import type { RunManagerOptions } from '../runs/run-options.js';
import type { RunReporter, RunOutcome } from '../runs/run-reporter.js';
import { RunStatus } from '../runs/run-status.js';

/** How often the review folder is looked at for decisions and expired holds. */
export const REVIEW_POLL_MS = 1_000;

export class ReviewDesk {
  readonly #o: RunManagerOptions;
  readonly #finisher: RunFinisher;
  readonly #reporter: RunReporter;
  readonly #held = new Set<number>();
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<void> = Promise.resolve();

  constructor(o: RunManagerOptions, finisher: RunFinisher, reporter: RunReporter) {
    this.#o = o;
    this.#finisher = finisher;
    this.#reporter = reporter;
  }

  get dir(): string {
    return this.#o.config.reviewDir;
  }

  /** Reads what is held (after a restart too) and starts looking for decisions. */
  async start(): Promise<void> {
    for (const e of await listHeldResults(this.dir)) this.#held.add(e.held.result_id);
    if (this.#held.size > 0)
      this.#o.log.info(
        { event: 'review.held', results: [...this.#held] },
        `${this.#held.size} results are held for the data officer`,
      );
    this.#timer = setInterval(() => void this.poll(), REVIEW_POLL_MS);
    this.#timer.unref();
    this.#o.signal.addEventListener('abort', () => clearInterval(this.#timer), { once: true });
    void this.poll();
  }

  /** Whether this node holds the result (it must not be taken on again). */
  isHeld(resultId: number): boolean {
    return this.#held.has(resultId);
  }

  /** Keeps `output` for the data officer and reports the run `awaiting release`. */
  async hold(run: RunInfo, held: HeldResult, output: Buffer): Promise<void> {
    await writeHeldResult(this.dir, held, output);
    this.#held.add(run.resultId);
    await this.#o.audit?.output('output.held', {
      result_id: run.resultId,
      task_id: run.taskId,
      run_id: run.runId,
      image: run.image,
      function: held.function,
      held_because: [...held.held_because],
      expires_at: held.expires_at,
    });
    // A server that refuses it (the run was killed meanwhile) refuses the release too; the hold stays until decided.
    await this.#reporter
      .status(run.resultId, { status: RunStatus.awaitingRelease })
      .catch((error: unknown) =>
        runLog(this.#o.log, run).warn(
          { event: 'run.held_report_failed', err: String(error) },
          'the server did not take the awaiting release status',
        ),
      );
    emitRunStatus(this.#o, run, RunStatus.awaitingRelease);
    runLog(this.#o.log, run).info(
      { event: 'run.held', held_because: held.held_because, expires_at: held.expires_at },
      "the result is held for the data officer's release",
    );
  }

  /**
   * A run the server lists as `awaiting release` that this node no longer holds (its review folder was lost):
   * reported refused, so that it does not wait forever.
   */
  async lost(run: RunInfo): Promise<void> {
    const reason = 'this node no longer holds the result it kept for its data officer';
    await this.#finisher.finish(run, runLog(this.#o.log, run), {
      status: RunStatus.releaseRefused,
      output: Buffer.alloc(0),
      log: nodeNote(`${reason}; create the task again to run it again`),
      reason,
    });
  }

  /** One look at the review folder: decided and expired holds are settled, one after another. */
  poll(): Promise<void> {
    this.#round = this.#round
      .then(() => this.#look())
      .catch((error: unknown) =>
        this.#o.log.error(
          { event: 'review.failed', err: String(error) },
          'the held results could not be looked at',
        ),
      );
    return this.#round;
  }

  async #look(): Promise<void> {
    if (this.#o.signal.aborted) return;
    const now = Date.now();
    for (const entry of await listHeldResults(this.dir)) {
      if (this.#o.signal.aborted) return;
      this.#held.add(entry.held.result_id);
      let e: HeldEntry | undefined = entry;
      if (!e.decision && Date.parse(e.held.expires_at) <= now) {
        await writeReviewDecision(this.dir, e.held.result_id, {
          decision: 'refuse',
          note: `not released within the time this node holds results (until ${e.held.expires_at})`,
          by: 'expiry',
          at: new Date(now).toISOString(),
        });
        e = (await listHeldResults(this.dir)).find((x) => x.held.result_id === entry.held.result_id);
      }
      if (e?.decision) await this.#settle(e);
    }
  }

  async #settle(entry: HeldEntry): Promise<void> {
    const { held, decision } = entry;
    if (!decision) return;
    const run: RunInfo = {
      resultId: held.result_id,
      taskId: held.task_id,
      runId: held.run_id,
      parentId: null,
      image: held.image,
      containerName: '',
      startedAtMs: Date.parse(held.held_at) || Date.now(),
      ...(held.initiating_organization_id !== null ? { initiator: held.initiating_organization_id } : {}),
    };
    const rlog = runLog(this.#o.log, run);
    const note = decision.note.trim();
    const released = decision.decision === 'release';
    await this.#o.audit?.output(released ? 'output.released' : 'output.release_refused', {
      result_id: held.result_id,
      task_id: held.task_id,
      run_id: held.run_id,
      image: held.image,
      decided_by: decision.by,
      decided_at: decision.at,
      note,
    });
    let outcome: RunOutcome;
    if (released) {
      const said = `released by this node's data officer (${decision.by})${note ? `: ${note}` : ''}`;
      const log = `${held.log}${held.log.endsWith('\n') || held.log === '' ? '' : '\n'}${nodeNote(said)}`;
      // A large output goes as a stream, like any other (docs/large-results.md).
      outcome =
        held.output_bytes >= this.#o.config.largeResultBytes
          ? {
              status: RunStatus.completed,
              output: Buffer.alloc(0),
              outputFile: { path: join(entry.dir, HELD_OUTPUT_FILE), size: held.output_bytes },
              log,
            }
          : { status: RunStatus.completed, output: await readHeldOutput(this.dir, held.result_id), log };
    } else {
      const reason =
        decision.by === 'expiry'
          ? `the held result expired unreleased: ${note}`
          : `this node's data officer (${decision.by}) refused to release the result${note ? `: ${note}` : ''}`;
      // Nothing of the run goes with a refusal: not the output, not the algorithm's log.
      outcome = { status: RunStatus.releaseRefused, output: Buffer.alloc(0), log: nodeNote(reason), reason };
    }
    rlog.info(
      { event: released ? 'run.released' : 'run.release_refused', by: decision.by },
      released ? 'the data officer released the result' : 'the held result was refused',
    );
    await this.#finisher.finish(run, rlog, outcome);
    await removeHeldResult(this.dir, held.result_id);
    this.#held.delete(held.result_id);
  }
}
