/**
 * One run from the moment the node takes it on to its report: checked, recorded and reported `initializing`,
 * prepared (prepare-run.ts), its container started (container-spec.ts; in a network helper's namespace when one is
 * ready), reported `active`, waited for, and reported with its output and log (docs/reliability.md). Every run ends
 * reported, or stays in the run store to be reattached after a restart.
 */
import type { Logger } from 'pino';
import { cleanTraceparent, requestedDatabases, sealLogPiece } from '@federa/common';

import { NodeStoppedError } from '../errors.js';
import type { OutputControl } from '../output/output-control.js';
import type { ContainerHandle, ContainerRuntime } from '../runtime/index.js';
import { localTimestamp, type WireResultWithTask } from '../server-client/wire.js';
import { declaredPorts } from '../vpn/algorithm-ports.js';
import { algorithmContainerSpec, inHelperNamespace } from './container-spec.js';
import { keepRunLog } from './kept-log.js';
import { LiveLog } from './live-log.js';
import { prepareRun } from './prepare-run.js';
import { auditRunEnd, auditRunStart } from './run-audit.js';
import { hostRunFiles, readRunOutput, removeRunFiles, runOutputSize } from './run-files.js';
import type { RunFinisher } from './run-finisher.js';
import { containerLog } from './container-lines.js';
import { emitRunStatus, mark, nodeNote, runLog, type RunInfo } from './run-info.js';
import type { RunManagerOptions } from './run-options.js';
import type { RecipientKey, RunOutcome, RunReporter } from './run-reporter.js';
import { RunStatus } from './run-status.js';
import { checkTask } from './task-check.js';

export interface RunExecutionOptions {
  readonly options: RunManagerOptions;
  readonly reporter: RunReporter;
  readonly finisher: RunFinisher;
  /** Containers of the runs in progress (what a kill stops); filled here. */
  readonly handles: Map<number, ContainerHandle>;
  /** Runs killed on request: they end without a report of their own. */
  readonly killed: Set<number>;
  /** The node's output policy, applied to what a run wrote before it is reported (docs/output-control.md). */
  readonly output: OutputControl;
}

export class RunExecution {
  readonly #x: RunExecutionOptions;
  readonly #o: RunManagerOptions;

  constructor(options: RunExecutionOptions) {
    this.#x = options;
    this.#o = options.options;
  }

  /** Runs `item` to its report. Throws NodeStoppedError when the node stops meanwhile. */
  async execute(run: RunInfo, item: WireResultWithTask): Promise<void> {
    const { store } = this.#o;
    const { reporter, finisher } = this.#x;
    const rlog = runLog(this.#o.log, run);
    // A task that fails the checks is reported at once: nothing is recorded, pulled or started for it.
    const refusal = checkTask(item, this.#o.identity.collaborationId);
    if (refusal) {
      rlog.warn(
        { event: 'run.refused', status: refusal.status, reason: refusal.reason },
        'the task cannot be run',
      );
      return finisher.finish(run, rlog, {
        status: refusal.status,
        output: Buffer.alloc(0),
        log: nodeNote(`this run cannot start: ${refusal.reason}`),
        reason: refusal.reason,
      });
    }
    rlog.info({ event: 'run.started', image: run.image }, 'run started');
    // The record and the `initializing` report go out while the run is prepared; the time reported is the time
    // the node took the run on. Every later report waits for it (the server sees the statuses in order), and the
    // container starts only once the run is recorded (a restarted node must know about it).
    // The task's trace context is kept with the run: a run resumed after a restart gets a span in the task's trace.
    const traceparent = cleanTraceparent((item.task as { traceparent?: unknown } | undefined)?.traceparent);
    const recorded = store.put({
      resultId: run.resultId,
      taskId: run.taskId,
      runId: run.runId,
      image: run.image,
      containerName: run.containerName,
      phase: 'starting',
      since: new Date(run.startedAtMs).toISOString(),
      ...(traceparent ? { traceparent } : {}),
    });
    const initializing = reporter
      .status(run.resultId, {
        started_at: localTimestamp(new Date(run.startedAtMs)),
        status: RunStatus.initializing,
      })
      .then(() => {
        emitRunStatus(this.#o, run, RunStatus.initializing);
        mark(run, 'initializing');
      });
    // Awaited below; handled here so that a failure before then is not an unhandled rejection.
    recorded.catch(() => undefined);
    initializing.catch(() => undefined);
    const finish = async (outcome: RunOutcome): Promise<void> => {
      await Promise.allSettled([recorded, initializing]);
      await finisher.finish(run, rlog, outcome);
    };
    try {
      const prepared = await prepareRun(this.#o, run, item, rlog);
      if (!prepared.ready) return await finish(prepared.outcome);
      // Never start an algorithm the node has not recorded, or whose start the server has not accepted.
      await Promise.all([recorded, initializing]);
      // Killed while it was prepared: it never starts (the server has it finished already).
      if (this.#x.killed.has(run.resultId)) return await this.#endKilled(run);
      const traces = this.#o.traces;
      const handle = traces
        ? await traces.step('container start', async (span) => {
            const started = await this.#start(run, item, prepared.tmpVolume, rlog);
            if ('outcome' in started) traces.failed(span, 'start_failed');
            return started;
          })
        : await this.#start(run, item, prepared.tmpVolume, rlog);
      if ('outcome' in handle) {
        await removeRunFiles(this.#o.volumeDir, run.resultId);
        return await finish(handle.outcome);
      }
      mark(run, 'container_started');
      // Killed while it was started: stopped at once (waitAndReport then ends it without a report).
      if (this.#x.killed.has(run.resultId)) await this.#o.runtime.kill(handle).catch(() => undefined);
      // Reported while the algorithm runs; the final report waits for it.
      const active = Promise.all([
        reporter.status(run.resultId, { status: RunStatus.active }),
        store.update(run.resultId, { phase: 'running' }),
      ]).then(() => emitRunStatus(this.#o, run, RunStatus.active));
      active.catch(() => undefined);
      await this.waitAndReport(run, handle, active);
    } catch (error) {
      if (error instanceof NodeStoppedError || this.#o.signal.aborted) throw new NodeStoppedError();
      rlog.error(
        { event: 'run.node_error', err: String(error) },
        'the node failed while running this algorithm',
      );
      const reason = `the node failed while running this algorithm: ${(error as Error)?.message ?? String(error)}`;
      await finish({ status: RunStatus.failed, output: Buffer.alloc(0), log: nodeNote(reason), reason });
    }
  }

  /**
   * Starts the container, in a network helper's namespace when one is ready; a second attempt after a failure
   * (without the helper, which may be gone). The outcome to report when neither attempt started it.
   */
  async #start(
    run: RunInfo,
    item: WireResultWithTask,
    tmpVolume: string,
    rlog: Logger,
  ): Promise<ContainerHandle | { outcome: RunOutcome }> {
    const { runtime, helpers, vpn } = this.#o;
    // Nothing runs unaudited: the start is recorded, with the image by digest, before the container starts.
    const unaudited = await auditRunStart(this.#o, run, item);
    if (unaudited !== undefined)
      return {
        outcome: {
          status: RunStatus.startFailed,
          output: Buffer.alloc(0),
          log: nodeNote(unaudited),
          reason: unaudited,
        },
      };
    const base = algorithmContainerSpec(this.#o, run, requestedDatabases(item.task), tmpVolume);
    const helper = vpn ? await helpers?.acquire() : helpers?.take();
    if (helper) run.helper = helper;
    if (vpn && run.helper) await this.#prepareVpn(run, rlog);
    let startError: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        // A container of that name is left over only when an earlier attempt failed half-way.
        if (attempt > 0) await runtime.removeContainerIfExists(run.containerName);
        return await runtime.runContainer(run.helper ? inHelperNamespace(base, run.helper) : base);
      } catch (error) {
        startError = error;
        rlog.warn(
          { event: 'run.start_attempt_failed', attempt, helper: run.helper, err: String(error) },
          'the container did not start',
        );
        if (run.helper) {
          // Perhaps the helper is gone: the second attempt joins the network itself.
          void helpers?.release(run.helper);
          delete run.helper;
        } else if (attempt === 0) await new Promise((r) => setTimeout(r, 1_000));
      }
    }
    const reason = `the container could not be started: ${(startError as Error)?.message ?? String(startError)}`;
    return {
      outcome: { status: RunStatus.startFailed, output: Buffer.alloc(0), log: nodeNote(reason), reason },
    };
  }

  /** Routes the VPN into the run's network namespace and forwards its image's ports (docs/vpn.md). */
  async #prepareVpn(run: RunInfo, rlog: Logger): Promise<void> {
    const vpn = this.#o.vpn;
    if (!vpn || !run.helper) return;
    try {
      const image = await this.#o.runtime.inspectImage(run.image);
      const ports = declaredPorts(image?.exposedPorts ?? [], image?.labels ?? {});
      await vpn.prepareRun(run.resultId, run.helper, ports);
    } catch (error) {
      rlog.warn(
        { event: 'vpn.run_setup_failed', err: String(error) },
        'the VPN could not be set up for this run; it runs without VPN ports',
      );
    }
  }

  /**
   * Waits for the container to exit, then reports the run with its output and log and removes what is left of it.
   * `active`: the `active` report, which the final report waits for.
   */
  async waitAndReport(run: RunInfo, handle: ContainerHandle, active?: Promise<void>): Promise<void> {
    const { runtime, log } = this.#o;
    const { reporter, finisher, killed } = this.#x;
    const rlog = runLog(log, run);
    this.#x.handles.set(run.resultId, handle);
    // The initiator's public key is looked up while the algorithm runs (and again at the end of a long run).
    const key = reporter.recipientKey(run.resultId, run.initiator);
    key.catch(() => undefined);
    const live = this.#liveLog(run, handle, key, active);
    let exitCode: number;
    try {
      ({ exitCode } = await waitUnlessStopped(runtime, handle, this.#o.signal));
    } finally {
      await live?.then((l) => l?.stop());
    }
    mark(run, 'container_exited');
    if (active)
      await active.catch((e: unknown) =>
        rlog.warn({ event: 'run.active_report_failed', err: String(e) }, 'could not report the run active'),
      );
    if (killed.has(run.resultId)) {
      killed.delete(run.resultId);
      await this.#cleanUp(run, handle);
      finisher.remember(run.resultId);
      await auditRunEnd(this.#o, run, { status: RunStatus.killed, reason: 'killed on request' });
      rlog.info(
        { event: 'run.finished', status: RunStatus.killed, duration_ms: Date.now() - run.startedAtMs },
        'run finished',
      );
      return;
    }
    const [logs, output] = await Promise.all([
      runtime
        .logs(handle)
        .then(containerLog)
        .catch((e: unknown) => nodeNote(`the container log could not be read: ${String(e)}`)),
      this.#readOutput(run.resultId),
      this.#o.store.update(run.resultId, { phase: 'reporting' }),
    ]);
    // With share_logs: false the container's log stays here; the server learns where it is.
    const shared = this.#o.config.shareLogs
      ? logs
      : await keepRunLog(this.#o.config.logDir, this.#o.config.name, run.resultId, logs).catch((e: unknown) =>
          nodeNote(`this node keeps the logs of its runs, but this one could not be written: ${String(e)}`),
        );
    // The node's notes (a database served by `default`) lead the log the server gets, shared or not.
    const exited = exitOutcome(exitCode, output?.bytes, (run.notes ?? []).map(nodeNote).join('') + shared);
    const outcome = await this.#x.output.apply(
      run,
      output?.file ? { ...exited, outputFile: output.file } : exited,
      rlog,
    );
    if (outcome === 'held') finisher.remember(run.resultId);
    else await finisher.finish(run, rlog, outcome, key);
    await this.#cleanUp(run, handle);
  }

  /**
   * The run's live log (live-log.ts), started once the server has the run `active` (an `active` report clears the
   * log): none when the node keeps its logs (`share_logs: false`) or cannot send them. In an encrypted collaboration
   * each batch is sealed for the task's initiator (`key`); without the key, nothing is streamed.
   */
  #liveLog(
    run: RunInfo,
    handle: ContainerHandle,
    key: Promise<RecipientKey>,
    active?: Promise<void>,
  ): Promise<LiveLog | undefined> | undefined {
    const { sendLog, config, runtime, log, cryptor } = this.#o;
    if (!sendLog || !config.shareLogs) return undefined;
    const ready = Promise.all([active, cryptor.encrypted ? key : undefined]);
    return ready.then(
      ([, recipient]) => {
        const live = new LiveLog({
          runtime,
          handle,
          resultId: run.resultId,
          send: sendLog,
          log: runLog(log, run),
          seal: recipient ? (text) => sealLogPiece(cryptor, text, recipient.publicKey) : undefined,
        });
        live.start();
        return live;
      },
      () => undefined,
    );
  }

  /** A run killed before its container started: nothing to stop; what was prepared goes, and no report. */
  async #endKilled(run: RunInfo): Promise<void> {
    const { volumeDir, store, log } = this.#o;
    this.#x.killed.delete(run.resultId);
    if (run.helper) await this.#o.runtime.removeContainerIfExists(run.helper).catch(() => undefined);
    await removeRunFiles(volumeDir, run.resultId).catch(() => undefined);
    await store.remove(run.resultId);
    this.#x.finisher.remember(run.resultId);
    await auditRunEnd(this.#o, run, {
      status: RunStatus.killed,
      reason: 'killed before its container started',
    });
    runLog(log, run).info(
      {
        event: 'run.finished',
        status: RunStatus.killed,
        started: false,
        duration_ms: Date.now() - run.startedAtMs,
      },
      'run killed before its container started',
    );
  }

  /**
   * The output the algorithm wrote: its bytes, or, from `large_result_mb` on, its file, sent as a stream
   * (docs/large-results.md); undefined when the file is missing.
   */
  async #readOutput(
    resultId: number,
  ): Promise<{ bytes: Buffer; file?: { path: string; size: number } } | undefined> {
    const size = await runOutputSize(this.#o.volumeDir, resultId);
    if (size === undefined) return undefined;
    if (size >= this.#o.config.largeResultBytes)
      return {
        bytes: Buffer.alloc(0),
        file: { path: hostRunFiles(this.#o.volumeDir, resultId).output, size },
      };
    const bytes = await readRunOutput(this.#o.volumeDir, resultId);
    return bytes === undefined ? undefined : { bytes };
  }

  async #cleanUp(run: RunInfo, handle: ContainerHandle): Promise<void> {
    const { runtime, vpn, volumeDir, store } = this.#o;
    await runtime.remove(handle).catch(() => undefined);
    await vpn?.releaseRun(run.resultId);
    if (run.helper) await runtime.removeContainerIfExists(run.helper).catch(() => undefined);
    await removeRunFiles(volumeDir, run.resultId).catch(() => undefined);
    await store.remove(run.resultId);
  }
}

/**
 * What an exited container's run reports: complete only when the container exited 0 and its output file is there
 * (docs/reliability.md); else crashed (non-zero exit) or unexpected output (no output file), with the reason added
 * to its log.
 */
export function exitOutcome(exitCode: number, output: Buffer | undefined, logs: string): RunOutcome {
  const problem =
    exitCode !== 0
      ? `the algorithm exited with code ${exitCode}`
      : output === undefined
        ? 'the algorithm exited with code 0, but its output file is missing'
        : undefined;
  const status =
    problem === undefined
      ? RunStatus.completed
      : exitCode !== 0
        ? RunStatus.crashed
        : RunStatus.unexpectedOutput;
  const log =
    problem === undefined
      ? logs
      : `${logs}${logs.endsWith('\n') || logs === '' ? '' : '\n'}${nodeNote(problem)}`;
  return { status, output: output ?? Buffer.alloc(0), log, ...(problem ? { reason: problem } : {}) };
}

/** The container's exit, unless the node stops first (NodeStoppedError; the container keeps running). */
async function waitUnlessStopped(
  runtime: ContainerRuntime,
  handle: ContainerHandle,
  signal: AbortSignal,
): Promise<{ exitCode: number }> {
  if (signal.aborted) throw new NodeStoppedError();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(new NodeStoppedError());
    signal.addEventListener('abort', onAbort, { once: true });
    runtime.waitForExit(handle).then(
      (r) => {
        signal.removeEventListener('abort', onAbort);
        resolve(r);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
