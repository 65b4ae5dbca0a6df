/**
 * The output policy applied to a run that completed (docs/output-control.md), on the plain output at the node,
 * before anything is encrypted or sent: the verdict of output-gate.ts, recorded in the audit log and the run's log
 * (rule and threshold, never a value), and, when a hold rule matches, the result kept for the data officer instead
 * of reported.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { HeldResult } from '@federa/common';

import type { OutputPolicy } from '../config/output-policy.js';
import { hostRunFiles } from '../runs/run-files.js';
import { nodeNote, type RunInfo } from '../runs/run-info.js';
import type { RunManagerOptions } from '../runs/run-options.js';
import type { RunOutcome } from '../runs/run-reporter.js';
import { RunStatus } from '../runs/run-status.js';
import type { WireResultWithTask } from '../server-client/wire.js';
import { declarationFor, functionOfInput } from './declaration-source.js';
import { DeclarationUnavailable } from './store-declarations.js';
import { gateOutput } from './output-gate.js';
import { holdReasons } from './hold-rules.js';
import type { ReviewDesk } from './review-desk.js';

const appendNote = (log: string, note: string): string =>
  `${log}${log.endsWith('\n') || log === '' ? '' : '\n'}${nodeNote(note)}`;

export class OutputControl {
  readonly #o: RunManagerOptions;
  readonly #desk: ReviewDesk;

  constructor(o: RunManagerOptions, desk: ReviewDesk) {
    this.#o = o;
    this.#desk = desk;
  }

  /**
   * The outcome to report for a run that ended with `outcome`, or `held` when its result is kept for the data
   * officer (reported `awaiting release`). Only a completed run's output is looked at.
   */
  async apply(run: RunInfo, outcome: RunOutcome, rlog: Logger): Promise<RunOutcome | 'held'> {
    const policy = this.#o.config.outputPolicy;
    if (!policy || outcome.status !== RunStatus.completed) return outcome;
    const ids = { result_id: run.resultId, task_id: run.taskId, run_id: run.runId, image: run.image };
    const fn = functionOfInput(
      await readFile(hostRunFiles(this.#o.volumeDir, run.resultId).input).catch(() => undefined),
    );
    let declaration;
    try {
      declaration = await declarationFor(
        policy,
        { image: run.image, fn, taskId: run.taskId },
        this.#o.declarations,
      );
    } catch (error) {
      if (!(error instanceof DeclarationUnavailable)) throw error;
      // Known when the run started, unknown now (a node restarted while its stores are down): nothing unchecked
      // leaves.
      return this.#refuse(
        outcome,
        rlog,
        { ...ids, function: fn ?? null },
        {
          rule: 'declared_output',
          threshold: 'unknown',
          reason: `${error.message}; the output is not sent unchecked`,
        },
      );
    }
    const size = outcome.outputFile?.size ?? outcome.output.length;
    // Too large to be read is refused before it is read.
    const bytes =
      policy.maxBytes !== undefined && size > policy.maxBytes
        ? Buffer.alloc(0)
        : outcome.outputFile
          ? await readFile(outcome.outputFile.path)
          : Buffer.from(outcome.output);
    const started = performance.now();
    const verdict = gateOutput(policy, bytes, declaration, size);
    const facts = {
      ...ids,
      function: fn ?? null,
      declared: declaration?.kind ?? null,
      check_ms: Math.round((performance.now() - started) * 1000) / 1000,
    };
    if (verdict.kind === 'refuse') return this.#refuse(outcome, rlog, facts, verdict);
    let log = outcome.log;
    if (verdict.suppressed.length > 0) {
      const what = verdict.suppressed.map((f) => ({
        rule: f.rule,
        threshold: f.threshold,
        field: f.field,
        cells: f.paths.length,
      }));
      await this.#o.audit?.output('output.suppressed', {
        ...facts,
        checks: [...verdict.checks],
        suppressed: what,
      });
      rlog.info({ event: 'run.output_suppressed', suppressed: what }, 'cells of the output were suppressed');
      log = appendNote(
        log,
        `this node suppressed part of the output: ${what.map((w) => `${w.cells} cells of '${w.field}' by ${w.rule} (threshold ${w.threshold})`).join('; ')}; they are null, listed under federa_suppressed`,
      );
    } else await this.#o.audit?.output('output.checked', { ...facts, checks: [...verdict.checks] });
    const changed = verdict.suppressed.length > 0;
    const passed: RunOutcome = changed
      ? { status: outcome.status, output: verdict.output, log }
      : { ...outcome, log };
    const why = holdReasons(policy.hold, {
      image: run.image,
      fn,
      collaborationId: this.#o.identity.collaborationId,
      userId: run.userId ?? (policy.hold?.users.length ? await this.#userOf(run) : undefined),
    });
    if (why.length === 0) return passed;
    await this.#hold(run, policy, passed, {
      fn,
      why,
      checks: verdict.checks,
      suppressed: changed,
      output: changed || !outcome.outputFile ? verdict.output : bytes,
    });
    return 'held';
  }

  /** The run ends `output refused`, naming the rule and threshold (never a value) in the audit log and its log. */
  async #refuse(
    outcome: RunOutcome,
    rlog: Logger,
    facts: Record<string, unknown>,
    verdict: { rule: string; threshold: unknown; reason: string },
  ): Promise<RunOutcome> {
    await this.#o.audit?.output('output.refused', {
      ...facts,
      rule: verdict.rule,
      threshold: verdict.threshold,
      reason: verdict.reason,
    });
    rlog.warn(
      {
        event: 'run.output_refused',
        rule: verdict.rule,
        threshold: verdict.threshold,
        reason: verdict.reason,
      },
      "the node's output policy refused the output",
    );
    const reason = `this node's output policy refused the output: rule ${verdict.rule} (threshold ${String(verdict.threshold)}): ${verdict.reason}`;
    return {
      status: RunStatus.outputRefused,
      output: Buffer.alloc(0),
      log: appendNote(outcome.log, reason),
      reason,
    };
  }

  async #hold(
    run: RunInfo,
    policy: OutputPolicy,
    outcome: RunOutcome,
    h: {
      fn: string | undefined;
      why: string[];
      checks: readonly string[];
      suppressed: boolean;
      output: Buffer;
    },
  ): Promise<void> {
    const now = Date.now();
    const held: HeldResult = {
      version: 1,
      result_id: run.resultId,
      task_id: run.taskId,
      run_id: run.runId,
      image: run.image,
      function: h.fn ?? null,
      initiating_organization_id: run.initiator ?? null,
      initiating_user_id: run.userId ?? null,
      collaboration_id: this.#o.identity.collaborationId,
      held_at: new Date(now).toISOString(),
      expires_at: new Date(now + (policy.hold?.expireAfterMs ?? 0)).toISOString(),
      held_because: h.why,
      checks: [...h.checks],
      suppressed: h.suppressed,
      log: outcome.log,
      output_bytes: h.output.length,
    };
    await this.#desk.hold(run, held, h.output);
  }

  /** The initiating user of a run picked up after a restart (the listing is gone): asked of the server. */
  async #userOf(run: RunInfo): Promise<number | undefined> {
    const item = await this.#o.rest
      .get<WireResultWithTask>(`/result/${run.resultId}`, { include: 'task' })
      .catch(() => undefined);
    const user = item?.task?.init_user;
    return typeof user === 'number' ? user : undefined;
  }
}
