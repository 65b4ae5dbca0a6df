/**
 * Runs the node's algorithm runs (docs/node-protocol.md#running-a-result, docs/container-environment.md): one container per result, several at
 * once (a master waits for its sub-tasks, which may run on this very node). Every run ends reported, with a log
 * that says what happened, or stays in the run record to be reattached after a restart.
 */
import type { Logger } from 'pino';
import type { Cryptor } from '@federa/common';

import type { NodeConfig } from '../config/node-config.js';
import { NodeStoppedError, ServerRequestError } from '../errors.js';
import type { ContainerHandle, ContainerRuntime, ContainerSpec } from '../runtime/index.js';
import { persist } from '../server-client/persist.js';
import type { RestClient } from '../server-client/rest-client.js';
import type { AlgorithmStatusChange, KillContainersPayload } from '../server-client/socket-channel.js';
import {
  listOf,
  localTimestamp,
  refId,
  type WireResult,
  type WireResultWithTask,
} from '../server-client/wire.js';
import { buildAlgorithmEnv, resolveDatabaseLabel } from './environment.js';
import {
  algorithmContainerName,
  algorithmLabels,
  CONTAINER_DATA_DIR,
  CONTAINER_TMP_DIR,
  tmpVolumeName,
  type NodeNames,
} from './naming.js';
import { HELPER_LABEL, type NetworkHelpers } from './network-helpers.js';
import { declaredPorts, type NodeVpn } from '../vpn/node-vpn.js';
import { checkPolicies } from './policy.js';
import { readRunOutput, removeRunFiles, writeRunFiles } from './run-files.js';
import { RunReporter, type RecipientKey, type RunOutcome } from './run-reporter.js';
import { RunStatus, type RunStatusValue } from './run-status.js';
import type { RunRecord, RunStore, StoredReport } from './run-store.js';
import { checkTask, quote, runIds } from './task-check.js';

export interface NodeIdentity {
  readonly nodeId: number;
  readonly organizationId: number;
  readonly collaborationId: number;
}

export interface RunManagerOptions {
  readonly runtime: ContainerRuntime;
  readonly rest: RestClient;
  readonly cryptor: Cryptor;
  readonly config: NodeConfig;
  readonly names: NodeNames;
  readonly identity: NodeIdentity;
  /** Host directory behind the data volume. */
  readonly volumeDir: string;
  readonly dataVolume: string;
  readonly network: string;
  /** Host part of HOST for algorithms, and `/etc/hosts` entries that make it resolve. */
  readonly proxyHost: string;
  readonly proxyPort: number;
  readonly extraHosts: readonly string[];
  readonly store: RunStore;
  readonly log: Logger;
  readonly emitStatus: (change: AlgorithmStatusChange) => void;
  readonly signal: AbortSignal;
  /** Network helpers started ahead of time (see network-helpers.ts); absent: algorithms join the network themselves. */
  readonly helpers?: NetworkHelpers;
  /** The VPN between algorithms, when the node is connected to one (docs/vpn.md). */
  readonly vpn?: NodeVpn | null;
}

interface RunInfo {
  readonly resultId: number;
  readonly taskId: number;
  readonly runId: number;
  readonly parentId: number | null;
  readonly image: string;
  readonly containerName: string;
  readonly startedAtMs: number;
  /** The task's initiating organization, when known from the listing. */
  readonly initiator?: number;
  /** Milliseconds since startedAtMs at which each step ended (logged with run.finished). */
  readonly marks?: Record<string, number>;
  /** The network helper whose namespace the container uses (removed with it). */
  helper?: string;
}

const FINISHED_MEMORY = 10_000;

export class RunManager {
  readonly #o: RunManagerOptions;
  readonly #reporter: RunReporter;
  readonly #active = new Map<number, Promise<void>>();
  readonly #handles = new Map<number, ContainerHandle>();
  readonly #killed = new Set<number>();
  /** Results this process reported: a listing fetched before the report must not start them again. */
  readonly #finished = new Set<number>();

  constructor(options: RunManagerOptions) {
    this.#o = options;
    this.#reporter = new RunReporter(options.rest, options.cryptor, options.log, options.signal);
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
   */
  accept(item: WireResultWithTask): boolean {
    const ids = runIds(item);
    if (!ids) {
      this.#o.log.warn(
        { event: 'run.unreportable', item: quote(item) },
        'an open result without a valid id was ignored: it cannot be reported',
      );
      return false;
    }
    const id = ids.resultId;
    if (this.#active.has(id) || this.#finished.has(id) || this.#o.store.has(id)) {
      this.#o.log.debug({ event: 'run.skip', result_id: id }, 'run already in progress or reported here');
      return false;
    }
    if (item.finished_at) return false;
    const task = item.task as Partial<WireResultWithTask['task']>;
    const info: RunInfo = {
      resultId: id,
      taskId: ids.taskId,
      runId: ids.runId,
      parentId: refId(task.parent ?? undefined) ?? null,
      image: typeof task.image === 'string' ? task.image : '',
      ...(typeof task.initiator === 'number' ? { initiator: task.initiator } : {}),
      containerName: algorithmContainerName(this.#o.names, id),
      startedAtMs: Date.now(),
      marks: {},
    };
    this.#track(id, this.#execute(info, item));
    return true;
  }

  /**
   * After a restart (docs/reliability.md): a finished run's kept report is sent again; a run whose container runs is
   * reattached and reported `active`; one whose container has exited is collected; a run that never started (no
   * container, or one that was created but never started) is started now; a run whose container is gone after it
   * started is reported lost.
   */
  async reattach(): Promise<void> {
    const { runtime, names, store, log } = this.#o;
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
    for (const found of records.values()) {
      let record = found;
      if (record.report) {
        this.#track(record.resultId, this.#redeliver(record, record.report));
        continue;
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
              .then(() => this.#emit(info, RunStatus.active))
          : undefined;
        active?.catch(() => undefined);
        this.#track(record.resultId, this.#waitAndReport(info, { id: state.id, name: state.name }, active));
      } else if (record.phase === 'starting') {
        this.#track(record.resultId, this.#restart(record));
      } else {
        this.#track(record.resultId, this.#reportLost(record));
      }
    }
    await this.#o.helpers?.start(helpersInUse);
  }

  /** `kill_containers` (docs/node-protocol.md#kill). */
  async kill(payload: KillContainersPayload): Promise<void> {
    const { identity, runtime, log } = this.#o;
    if (payload.collaboration_id !== undefined && payload.collaboration_id !== identity.collaborationId)
      return;
    if (payload.node_id !== undefined && payload.node_id !== identity.nodeId) return;
    const targets = payload.kill_list
      ? payload.kill_list.filter((k) => k.organization_id === identity.organizationId).map((k) => k.result_id)
      : [...this.#active.keys()];
    for (const resultId of targets) {
      if (!this.#active.has(resultId)) continue;
      this.#killed.add(resultId);
      const handle = this.#handles.get(resultId) ?? {
        id: algorithmContainerName(this.#o.names, resultId),
        name: algorithmContainerName(this.#o.names, resultId),
      };
      await runtime.kill(handle);
      log.info({ event: 'run.killed', result_id: resultId }, 'algorithm killed on request');
      await this.#o.rest.request('PATCH', `/result/${resultId}`, {
        body: { status: RunStatus.killed },
        allowError: true,
      });
      const run = await this.#o.store.get(resultId);
      if (run) this.#emit({ resultId, taskId: run.taskId, parentId: null }, RunStatus.killed);
    }
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
        this.#active.delete(resultId);
        this.#handles.delete(resultId);
      });
    this.#active.set(resultId, p);
  }

  async #execute(run: RunInfo, item: WireResultWithTask): Promise<void> {
    const { log, store, rest, runtime, config } = this.#o;
    const rlog = log.child({ result_id: run.resultId, task_id: run.taskId, run_id: run.runId });
    // A task that fails the checks is reported at once: nothing is recorded, pulled or started for it.
    const refusal = checkTask(item, this.#o.identity.collaborationId);
    if (refusal) {
      rlog.warn(
        { event: 'run.refused', status: refusal.status, reason: refusal.reason },
        'the task cannot be run',
      );
      return this.#finish(run, rlog, {
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
    const recorded = store.put({
      resultId: run.resultId,
      taskId: run.taskId,
      runId: run.runId,
      image: run.image,
      containerName: run.containerName,
      phase: 'starting',
      since: new Date(run.startedAtMs).toISOString(),
    });
    const initializing = this.#reporter
      .status(run.resultId, {
        started_at: localTimestamp(new Date(run.startedAtMs)),
        status: RunStatus.initializing,
      })
      .then(() => {
        this.#emit(run, RunStatus.initializing);
        mark(run, 'initializing');
      });
    // Awaited below; handled here so that a failure before then is not an unhandled rejection.
    recorded.catch(() => undefined);
    initializing.catch(() => undefined);
    const finish = async (outcome: RunOutcome): Promise<void> => {
      await Promise.allSettled([recorded, initializing]);
      await this.#finish(run, rlog, outcome);
    };
    try {
      let input: Buffer;
      try {
        input = item.input ? this.#o.cryptor.decryptStringToBytes(item.input) : Buffer.alloc(0);
      } catch (error) {
        const reason = `the task input could not be read: ${(error as Error).message}`;
        return await finish({
          status: RunStatus.failed,
          output: Buffer.alloc(0),
          log: nodeNote(reason),
          reason,
        });
      }

      const again = <T>(what: string, fn: () => Promise<T>): Promise<T> =>
        persist(fn, { what, signal: this.#o.signal, log: rlog });
      const verdict = await checkPolicies(item.task, config, (name) =>
        again('organization lookup', async () =>
          listOf<{ id: number }>(await rest.get('/organization', { name })).map((o) => o.id),
        ),
      );
      if (!verdict.allowed) {
        return await finish({
          status: RunStatus.notAllowed,
          output: Buffer.alloc(0),
          log: nodeNote(`this node refuses the run: ${verdict.reason}`),
          reason: verdict.reason,
        });
      }

      // Token, image and temporary volume do not depend on each other.
      const tmpVolume = tmpVolumeName(this.#o.names, run.runId);
      const [{ container_token: token }, pull] = await Promise.all([
        again('container token', () =>
          rest.post<{ container_token: string }>('/token/container', {
            task_id: run.taskId,
            image: run.image,
          }),
        ),
        runtime.pullIfNewer(run.image),
        runtime.ensureVolume(tmpVolume, {
          'federa.node': this.#o.names.node,
          'federa.run_id': String(run.runId),
        }),
      ]);
      mark(run, 'token_image_volume');
      if (pull.action === 'missing') {
        const reason = `the image ${run.image} does not exist on this node and could not be pulled${pull.warning ? `: ${pull.warning}` : ''}`;
        return await finish({
          status: RunStatus.noSuchImage,
          output: Buffer.alloc(0),
          log: nodeNote(reason),
          reason,
        });
      }
      if (pull.action === 'local-fallback')
        rlog.warn(
          { event: 'image.local_fallback', image: run.image, warning: pull.warning },
          'registry unreachable: using the local image',
        );
      if (pull.action === 'pulled')
        rlog.info({ event: 'image.pulled', image: run.image }, 'pulled a newer image');

      await writeRunFiles(this.#o.volumeDir, run.resultId, input, token);
      mark(run, 'files');

      const { label, fellBack } = resolveDatabaseLabel(item.task.database, config.databases);
      if (fellBack)
        rlog.warn(
          { event: 'run.database_fallback', requested: item.task.database },
          `the requested database is not configured here: using '${String(label)}'`,
        );

      const base: ContainerSpec = {
        name: run.containerName,
        image: run.image,
        env: buildAlgorithmEnv({
          resultId: run.resultId,
          requestedDatabase: item.task.database,
          databases: config.databases,
          proxyHost: this.#o.proxyHost,
          proxyPort: this.#o.proxyPort,
          algorithmEnv: config.algorithmEnv,
        }),
        mounts: [
          { source: this.#o.dataVolume, target: CONTAINER_DATA_DIR, type: 'volume' },
          { source: tmpVolume, target: CONTAINER_TMP_DIR, type: 'volume' },
        ],
        network: this.#o.network,
        labels: algorithmLabels(this.#o.names, run),
        extraHosts: this.#o.extraHosts,
        ...(config.gpu ? { gpus: true } : {}),
      };
      // In a helper's network namespace when one is ready (its hosts entries come with it), else on the network.
      const withHelper = (helper: string): ContainerSpec => {
        const { extraHosts: _hosts, ...rest } = base;
        return {
          ...rest,
          network: `container:${helper}`,
          labels: { ...base.labels, [HELPER_LABEL]: helper },
        };
      };
      // Never start an algorithm the node has not recorded, or whose start the server has not accepted.
      await Promise.all([recorded, initializing]);
      const helper = this.#o.vpn ? await this.#o.helpers?.acquire() : this.#o.helpers?.take();
      if (helper) run.helper = helper;
      if (this.#o.vpn && run.helper) await this.#prepareVpn(run, rlog);
      let handle: ContainerHandle | undefined;
      let startError: unknown;
      for (let attempt = 0; attempt < 2 && !handle; attempt++) {
        try {
          // A container of that name is left over only when an earlier attempt failed half-way.
          if (attempt > 0) await runtime.removeContainerIfExists(run.containerName);
          handle = await runtime.runContainer(run.helper ? withHelper(run.helper) : base);
        } catch (error) {
          startError = error;
          rlog.warn(
            { event: 'run.start_attempt_failed', attempt, helper: run.helper, err: String(error) },
            'the container did not start',
          );
          if (run.helper) {
            // Perhaps the helper is gone: the second attempt joins the network itself.
            void this.#o.helpers?.release(run.helper);
            delete run.helper;
          } else if (attempt === 0) await new Promise((r) => setTimeout(r, 1_000));
        }
      }
      if (!handle) {
        await removeRunFiles(this.#o.volumeDir, run.resultId);
        const reason = `the container could not be started: ${(startError as Error)?.message ?? String(startError)}`;
        return await finish({
          status: RunStatus.startFailed,
          output: Buffer.alloc(0),
          log: nodeNote(reason),
          reason,
        });
      }
      mark(run, 'container_started');
      // Reported while the algorithm runs; the final report waits for it.
      const active = Promise.all([
        this.#reporter.status(run.resultId, { status: RunStatus.active }),
        store.update(run.resultId, { phase: 'running' }),
      ]).then(() => this.#emit(run, RunStatus.active));
      active.catch(() => undefined);
      await this.#waitAndReport(run, handle, active);
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

  async #waitAndReport(run: RunInfo, handle: ContainerHandle, active?: Promise<void>): Promise<void> {
    const { runtime, log } = this.#o;
    const rlog = log.child({ result_id: run.resultId, task_id: run.taskId, run_id: run.runId });
    this.#handles.set(run.resultId, handle);
    // The initiator's public key is looked up while the algorithm runs (and again at the end of a long run).
    const key = this.#reporter.recipientKey(run.resultId, run.initiator);
    key.catch(() => undefined);
    const { exitCode } = await waitUnlessStopped(runtime, handle, this.#o.signal);
    mark(run, 'container_exited');
    if (active)
      await active.catch((e: unknown) =>
        rlog.warn({ event: 'run.active_report_failed', err: String(e) }, 'could not report the run active'),
      );
    if (this.#killed.has(run.resultId)) {
      this.#killed.delete(run.resultId);
      await this.#cleanUp(run, handle);
      this.#finished.add(run.resultId);
      rlog.info(
        { event: 'run.finished', status: RunStatus.killed, duration_ms: Date.now() - run.startedAtMs },
        'run finished',
      );
      return;
    }
    const [logs, output] = await Promise.all([
      runtime
        .logs(handle)
        .catch((e: unknown) => nodeNote(`the container log could not be read: ${String(e)}`)),
      readRunOutput(this.#o.volumeDir, run.resultId),
      this.#o.store.update(run.resultId, { phase: 'reporting' }),
    ]);
    // Complete only when the container started, exited 0 and its output file is there (docs/reliability.md).
    const problem =
      exitCode !== 0
        ? `the algorithm exited with code ${exitCode}`
        : output === undefined
          ? 'the algorithm exited with code 0, but its output file is missing'
          : undefined;
    const status =
      problem === undefined ? RunStatus.completed : exitCode !== 0 ? RunStatus.crashed : RunStatus.failed;
    const logText =
      problem === undefined
        ? logs
        : `${logs}${logs.endsWith('\n') || logs === '' ? '' : '\n'}${nodeNote(problem)}`;
    await this.#finish(
      run,
      rlog,
      { status, output: output ?? Buffer.alloc(0), log: logText, ...(problem ? { reason: problem } : {}) },
      key,
    );
    await this.#cleanUp(run, handle);
  }

  async #cleanUp(run: RunInfo, handle: ContainerHandle): Promise<void> {
    await this.#o.runtime.remove(handle).catch(() => undefined);
    await this.#o.vpn?.releaseRun(run.resultId);
    if (run.helper) await this.#o.runtime.removeContainerIfExists(run.helper).catch(() => undefined);
    await removeRunFiles(this.#o.volumeDir, run.resultId).catch(() => undefined);
    await this.#o.store.remove(run.resultId);
  }

  async #finish(run: RunInfo, rlog: Logger, outcome: RunOutcome, key?: Promise<RecipientKey>): Promise<void> {
    this.#emit(run, outcome.status);
    const report = await this.#reporter.prepare(run.resultId, outcome, run.initiator, key);
    if (report) {
      // Kept before it is sent: a node that stops now sends it again at its next start.
      await this.#keepReport(run, report);
      await this.#reporter.deliver(run.resultId, report);
    }
    this.#finished.add(run.resultId);
    if (this.#finished.size > FINISHED_MEMORY)
      this.#finished.delete(this.#finished.values().next().value as number);
    await this.#o.store.remove(run.resultId);
    const level = outcome.status === RunStatus.completed ? 'info' : 'warn';
    mark(run, 'reported');
    rlog[level](
      {
        event: 'run.finished',
        status: outcome.status,
        duration_ms: Date.now() - run.startedAtMs,
        output_bytes: outcome.output.length,
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

  /** After a restart: a finished run's kept report is sent again, then what is left of the run is removed. */
  async #redeliver(record: RunRecord, report: StoredReport): Promise<void> {
    const { runtime, store, log, volumeDir } = this.#o;
    const rlog = log.child({ result_id: record.resultId, task_id: record.taskId, run_id: record.runId });
    const accepted = await this.#reporter.deliver(record.resultId, report);
    await runtime.removeContainerIfExists(record.containerName).catch(() => false);
    await removeRunFiles(volumeDir, record.resultId).catch(() => undefined);
    this.#finished.add(record.resultId);
    await store.remove(record.resultId);
    rlog.info(
      { event: 'run.finished', status: report.status, redelivered: true, accepted },
      'the kept report of a finished run was sent again',
    );
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
    const task = item.task as Partial<WireResultWithTask['task']>;
    log.info(
      { event: 'run.restarted', result_id: record.resultId, task_id: record.taskId, run_id: record.runId },
      'a run taken on before the node stopped, but never started, starts now',
    );
    await this.#execute(
      {
        resultId: record.resultId,
        taskId: record.taskId,
        runId: record.runId,
        parentId: refId(task.parent ?? undefined) ?? null,
        image: typeof task.image === 'string' ? task.image : '',
        ...(typeof task.initiator === 'number' ? { initiator: task.initiator } : {}),
        containerName: record.containerName,
        startedAtMs: Date.now(),
        marks: {},
      },
      item,
    );
  }

  /** A recorded run whose container is gone after it started: report it lost if the server still has it open. */
  async #reportLost(record: RunRecord): Promise<void> {
    const { rest, log } = this.#o;
    const res = await rest.request<WireResult>('GET', `/result/${record.resultId}`, { allowError: true });
    const run: RunInfo = { ...record, parentId: null, startedAtMs: Date.parse(record.since) || Date.now() };
    const rlog = log.child({ result_id: record.resultId, task_id: record.taskId, run_id: record.runId });
    if (res.status > 210 || res.body.finished_at) {
      await this.#o.store.remove(record.resultId);
      return;
    }
    const reason = 'the node stopped during this run and its container no longer exists';
    await this.#finish(run, rlog, {
      status: RunStatus.unknownError,
      output: Buffer.alloc(0),
      log: nodeNote(`${reason}; the run was not completed. Create the task again to retry it.`),
      reason,
    });
  }

  #emit(run: { resultId: number; taskId: number; parentId: number | null }, status: RunStatusValue): void {
    const { identity } = this.#o;
    this.#o.emitStatus({
      node_id: identity.nodeId,
      status,
      result_id: run.resultId,
      task_id: run.taskId,
      collaboration_id: identity.collaborationId,
      organization_id: identity.organizationId,
      parent_id: run.parentId,
    });
  }
}

const mark = (run: RunInfo, step: string): void => {
  if (run.marks) run.marks[step] = Date.now() - run.startedAtMs;
};

/** A line the node adds to a run's log, told apart from the algorithm's own output. */
export const nodeNote = (text: string): string => `[federa node] ${text}\n`;

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
