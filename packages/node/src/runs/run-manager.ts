/**
 * Runs the node's algorithm runs (docs/node-protocol.md#running-a-result, docs/container-environment.md): one container per result, several at
 * once (a master waits for its sub-tasks, which may run on this very node). Every run ends reported, with a log
 * that says what happened, or stays in the run record to be reattached after a restart.
 *
 * The manager holds the set of runs in progress: it takes runs on (accept), picks them up again after a restart
 * (reattach), kills them on request and, at every connection, stops those the server killed meanwhile (reconcile). One run's course is run-execution.ts (prepare-run.ts, container-spec.ts),
 * its end run-finisher.ts.
 */
import type { RunReportBody } from '@federa/common';

import { NodeStoppedError, ServerRequestError } from '../errors.js';
import type { ContainerHandle } from '../runtime/index.js';
import { persist } from '../server-client/persist.js';
import type { KillContainersPayload } from '../server-client/socket-channel.js';
import type { WireResult, WireResultWithTask } from '../server-client/wire.js';
import { OutputControl } from '../output/output-control.js';
import { ReviewDesk } from '../output/review-desk.js';
import { HELPER_LABEL } from './network-helpers.js';
import { RunExecution } from './run-execution.js';
import { RunFinisher } from './run-finisher.js';
import { emitRunStatus, newRun, type RunInfo } from './run-info.js';
import type { RunManagerOptions } from './run-options.js';
import { RunReporter } from './run-reporter.js';
import { RunStatus } from './run-status.js';
import type { RunRecord } from './run-store.js';
import type { TracedRun } from '../tracing/run-traces.js';
import { quote, runIds } from './task-check.js';

export class RunManager {
  readonly #o: RunManagerOptions;
  readonly #reporter: RunReporter;
  readonly #finisher: RunFinisher;
  readonly #execution: RunExecution;
  readonly #desk: ReviewDesk;
  readonly #active = new Map<number, Promise<void>>();
  readonly #handles = new Map<number, ContainerHandle>();
  readonly #killed = new Set<number>();

  constructor(options: RunManagerOptions) {
    this.#o = options;
    this.#reporter = new RunReporter(options.rest, options.cryptor, options.log, options.signal);
    this.#finisher = new RunFinisher(options, this.#reporter);
    this.#desk = new ReviewDesk(options, this.#finisher, this.#reporter);
    this.#execution = new RunExecution({
      options,
      reporter: this.#reporter,
      finisher: this.#finisher,
      output: new OutputControl(options, this.#desk),
      handles: this.#handles,
      killed: this.#killed,
    });
  }

  /** The results held for the node's data officer (docs/output-control.md#held-results). */
  get review(): ReviewDesk {
    return this.#desk;
  }

  /** Result ids in progress in this process. */
  get activeRuns(): number[] {
    return [...this.#active.keys()];
  }

  /** Resolves when no run is in progress and no network helper is being started. */
  async idle(): Promise<void> {
    while (this.#active.size > 0) await Promise.allSettled([...this.#active.values()]);
    await this.#o.helpers?.settled();
  }

  /**
   * Takes on an open result unless it is already running here, recorded, or reported. Returns whether it did. Never
   * throws: whatever the item holds, it is checked in the run (task-check.ts) and the run ends reported.
   * `fetchedSince`: when the fetch that brought it began (the start of its span).
   */
  accept(item: WireResultWithTask, fetchedSince?: number): boolean {
    const ids = runIds(item);
    if (!ids) {
      this.#o.log.warn(
        { event: 'run.unreportable', item: quote(item) },
        'an open result without a valid id was ignored: it cannot be reported',
      );
      return false;
    }
    const id = ids.resultId;
    if (this.#active.has(id) || this.#finisher.has(id) || this.#o.store.has(id) || this.#desk.isHeld(id)) {
      this.#o.log.debug({ event: 'run.skip', result_id: id }, 'run already in progress or reported here');
      return false;
    }
    if (item.finished_at) return false;
    const info = newRun(this.#o.names, ids, item);
    if (item.status === RunStatus.awaitingRelease) {
      this.#track(id, this.#desk.lost(info));
      return true;
    }
    const traces = this.#o.traces;
    const span = traces?.startRun(
      { ...ids, parentId: info.parentId, traceparent: (item.task as { traceparent?: unknown }).traceparent },
      fetchedSince,
    );
    this.#track(
      id,
      traces
        ? traces.within(span, () => this.#execution.execute(info, item))
        : this.#execution.execute(info, item),
    );
    return true;
  }

  /**
   * After a restart (docs/reliability.md): a finished run's kept report is sent again; a run whose container runs is
   * reattached and reported `active`; one whose container has exited is collected; a run that never started (no
   * container, or one that was created but never started) is started now; a run whose container is gone after it
   * started is reported lost.
   */
  async reattach(): Promise<void> {
    const { runtime, names, store, traces } = this.#o;
    await this.#desk.start();
    const records = new Map(store.all().map((r) => [r.resultId, r] as const));
    const containers = await runtime.listContainers({
      'vantage6-type': 'algorithm',
      node: names.node,
      'federa.prefix': names.prefix,
    });
    const helpersInUse = new Set<string>();
    for (const c of containers) {
      const helper = c.labels[HELPER_LABEL];
      if (helper) helpersInUse.add(helper);
      const resultId = Number(c.labels.result_id);
      if (!Number.isInteger(resultId) || records.has(resultId)) continue;
      records.set(resultId, {
        resultId,
        taskId: Number(c.labels['federa.task_id']),
        runId: Number(c.labels['federa.run_id']),
        image: c.image,
        containerName: c.name,
        phase: 'running',
        since: new Date().toISOString(),
      });
    }
    for (const record of records.values()) {
      // The run's span, in its task's trace, covers what the node does with it from now on (run-traces.ts).
      const span = traces?.on ? traces.resumeRun(await this.#traceOf(record)) : undefined;
      try {
        await (traces && span ? traces.within(span, () => this.#resume(record)) : this.#resume(record));
      } catch (error) {
        traces?.endRun(record.resultId);
        throw error;
      }
    }
    await this.#o.helpers?.start(helpersInUse);
  }

  /** After a restart: one run the node had taken on, picked up again as reattach() says. */
  async #resume(found: RunRecord): Promise<void> {
    const { runtime, store, log } = this.#o;
    let record = found;
    if (record.report) {
      this.#track(record.resultId, this.#finisher.redeliver(record, record.report));
      return;
    }
    let state = await runtime.inspectContainer(record.containerName);
    if (state && state.startedAt === undefined && state.status === 'created') {
      // Created but never started (the node stopped in between): nothing ran. An exit code read from such a
      // container means nothing, so it is removed and the run started anew.
      log.info(
        {
          event: 'run.never_started',
          result_id: record.resultId,
          task_id: record.taskId,
          run_id: record.runId,
        },
        'the container of this run was created but never started: starting the run now',
      );
      await runtime.remove(state);
      const helper = state.labels[HELPER_LABEL];
      if (helper) await runtime.removeContainerIfExists(helper).catch(() => false);
      state = undefined;
      record = { ...record, phase: 'starting' };
    }
    const info: RunInfo = {
      ...record,
      parentId: null,
      startedAtMs: Date.parse(record.since) || Date.now(),
      ...(state?.labels[HELPER_LABEL] ? { helper: state.labels[HELPER_LABEL] } : {}),
    };
    if (state) {
      log.info(
        { event: 'run.reattached', result_id: record.resultId, running: state.running },
        state.running
          ? 'reattached to a running algorithm'
          : 'collecting an algorithm that finished while the node was down',
      );
      await store.put({ ...record, phase: 'running' });
      // A run that goes on is `active` again at once (the server may still show `initializing`).
      const active = state.running
        ? this.#reporter
            .status(record.resultId, { status: RunStatus.active })
            .then(() => emitRunStatus(this.#o, info, RunStatus.active))
        : undefined;
      active?.catch(() => undefined);
      this.#track(
        record.resultId,
        this.#execution.waitAndReport(info, { id: state.id, name: state.name }, active),
      );
    } else if (record.phase === 'starting') {
      this.#track(record.resultId, this.#restart(record));
    } else {
      this.#track(record.resultId, this.#finisher.reportLost(record));
    }
  }

  /**
   * A run's ids and its task's trace context: kept in its record, or (a record from before the context was kept, or
   * a container found without one) read from its task.
   */
  async #traceOf(record: RunRecord): Promise<TracedRun> {
    const ids = { resultId: record.resultId, taskId: record.taskId, runId: record.runId, parentId: null };
    if (record.traceparent) return { ...ids, traceparent: record.traceparent };
    const task = await this.#o.rest
      .request<{ traceparent?: unknown }>('GET', `/task/${record.taskId}`, { allowError: true })
      .catch(() => undefined);
    return { ...ids, traceparent: task && task.status < 300 ? task.body.traceparent : undefined };
  }

  /**
   * `kill_containers` (docs/node-protocol.md#kill): every targeted run in progress here is stopped, all at once. A
   * run still being prepared never starts its container; a running one is killed, confirmed `killed by user` to the
   * server, and ends without a report of its own.
   */
  async kill(payload: KillContainersPayload): Promise<void> {
    const { identity } = this.#o;
    if (payload.collaboration_id !== undefined && payload.collaboration_id !== identity.collaborationId)
      return;
    if (payload.node_id !== undefined && payload.node_id !== identity.nodeId) return;
    const targets = payload.kill_list
      ? payload.kill_list.filter((k) => k.organization_id === identity.organizationId).map((k) => k.result_id)
      : [...this.#active.keys()];
    await Promise.all(targets.filter((id) => this.#active.has(id)).map((id) => this.#killRun(id, 'request')));
  }

  /**
   * At every (re)connection (docs/run-statuses.md#kill): asks the server about each run in progress here; one it
   * has killed meanwhile (the node was offline, or restarted, when the kill went out) is stopped now.
   */
  async reconcile(): Promise<void> {
    const { rest, log } = this.#o;
    const ids = [...this.#active.keys()].filter((id) => !this.#killed.has(id));
    await Promise.all(
      ids.map(async (id) => {
        const answer = await rest.request<WireResult>('GET', `/result/${id}`, { allowError: true });
        if (answer.status > 210) return;
        const status = answer.body.status;
        if (answer.body.finished_at && (status === RunStatus.killed || status === RunStatus.cancelled)) {
          log.info(
            { event: 'run.killed_while_away', result_id: id, status },
            'the server ended this run meanwhile',
          );
          await this.#killRun(id, 'reconnect');
        }
      }),
    );
  }

  async #killRun(resultId: number, why: 'request' | 'reconnect'): Promise<void> {
    const { runtime, log, rest } = this.#o;
    if (this.#killed.has(resultId)) return;
    this.#killed.add(resultId);
    const handle = this.#handles.get(resultId);
    // Without a handle the run is still being prepared: run-execution sees the mark and never starts it.
    if (handle)
      await runtime
        .kill(handle)
        .catch((error: unknown) =>
          log.warn(
            { event: 'run.kill_failed', result_id: resultId, err: String(error) },
            'the container could not be killed (it may have exited already)',
          ),
        );
    log.info({ event: 'run.killed', result_id: resultId, why, running: handle !== undefined }, 'run killed');
    const confirmed = await rest
      .request('PATCH', `/result/${resultId}`, {
        body: { status: RunStatus.killed } satisfies RunReportBody,
        allowError: true,
      })
      .catch(() => undefined);
    if (confirmed && confirmed.status > 210)
      log.debug(
        { event: 'run.kill_confirm_refused', result_id: resultId, status: confirmed.status },
        'kill not confirmed',
      );
    const run = this.#o.store.get(resultId);
    if (run) emitRunStatus(this.#o, { resultId, taskId: run.taskId, parentId: null }, RunStatus.killed);
  }

  #track(resultId: number, work: Promise<void>): void {
    const p = work
      .catch((error: unknown) => {
        if (!(error instanceof NodeStoppedError))
          this.#o.log.error(
            { event: 'run.error', result_id: resultId, err: String(error) },
            'run handling failed',
          );
      })
      .finally(() => {
        this.#o.traces?.endRun(resultId);
        this.#active.delete(resultId);
        this.#handles.delete(resultId);
        this.#killed.delete(resultId);
      });
    this.#active.set(resultId, p);
  }

  /**
   * After a restart: a run the node had taken on but not started. Nothing of it ran, so it is started now (when the
   * server still has it open).
   */
  async #restart(record: RunRecord): Promise<void> {
    const { rest, store, log } = this.#o;
    const item = await persist(
      () => rest.get<WireResultWithTask>(`/result/${record.resultId}`, { include: 'task' }),
      { what: `result ${record.resultId}`, signal: this.#o.signal, log },
    ).catch((error: unknown) => {
      if (error instanceof ServerRequestError && error.status < 500) return undefined;
      throw error;
    });
    if (!item || item.finished_at) {
      await store.remove(record.resultId);
      return;
    }
    log.info(
      { event: 'run.restarted', result_id: record.resultId, task_id: record.taskId, run_id: record.runId },
      'a run taken on before the node stopped, but never started, starts now',
    );
    await this.#execution.execute(newRun(this.#o.names, record, item, record.containerName), item);
  }
}
