/**
 * The node's audit log (docs/audit.md, "For node admins"): a hash-chained file in `<data folder>/audit` (in Docker the
 * host's data folder mounted at /mnt/audit, out of reach of algorithms). Every run gets `run.started` before its
 * container starts (the image by digest, the task, run, initiating user and organization, the data sources, the
 * SHA-256 of the input as received) and `run.finished` with its outcome. A run whose `run.started` cannot be
 * written is not started: a node runs nothing unaudited.
 */
import type { Logger } from 'pino';
import {
  appendOrReport,
  AuditLog,
  logAuditHead,
  sha256Hex,
  watchAuditHead,
  type AuditEntry,
  type AuditFields,
} from '@federa/common';

import type { WireResultWithTask } from '../server-client/wire.js';
import { NODE_VERSION } from '../version.js';

/** What the node knows of a run when it is about to start its container. */
export interface RunStartFacts {
  readonly resultId: number;
  readonly taskId: number;
  readonly runId: number;
  readonly image: string;
  /** Local image id (`sha256:…`, the digest of the image's configuration) of the image the container is made from. */
  readonly imageId: string | undefined;
  /** `repository@sha256:…` of that image, for every registry it came from. */
  readonly repoDigests: readonly string[];
  /** The data source the run gets as its database (`DATABASE_URI`), and every label it can reach. */
  readonly database: string | undefined;
  readonly databases: readonly string[];
  readonly item: WireResultWithTask;
}

/** A run's end. */
export interface RunEndFacts {
  readonly resultId: number;
  readonly taskId: number;
  readonly runId: number;
  readonly image: string;
  readonly status: string;
  readonly reason?: string;
  readonly outputBytes?: number;
  /** The task's initiating organization, when known. */
  readonly initiator?: number;
}

export type OutputAuditEvent =
  | 'output.checked'
  | 'output.suppressed'
  | 'output.refused'
  | 'output.held'
  | 'output.released'
  | 'output.release_refused';

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Who asked for a run, and what it received, as the task says (never the input itself). */
export function taskFacts(item: WireResultWithTask): AuditFields {
  const task = (item.task ?? {}) as Partial<WireResultWithTask['task']>;
  return {
    initiating_user_id: num(task.init_user),
    initiating_organization_id: num(task.initiator ?? task.init_org),
    collaboration_id: num((task.collaboration as { id?: unknown } | null | undefined)?.id),
    parent_task_id: num((task.parent as { id?: unknown } | null | undefined)?.id),
    requested_database: typeof task.database === 'string' ? task.database.slice(0, 200) : null,
    input_sha256: sha256Hex(typeof item.input === 'string' ? item.input : ''),
    input_bytes: typeof item.input === 'string' ? Buffer.byteLength(item.input) : 0,
  };
}

export class NodeAudit {
  readonly #log: AuditLog;
  readonly #logger: Logger;
  readonly #stopHead: () => void;

  private constructor(log: AuditLog, logger: Logger) {
    this.#log = log;
    this.#logger = logger;
    this.#stopHead = watchAuditHead(log, logger);
  }

  /**
   * Opens the node's chain and records `node.started`.
   * @throws when it cannot be opened or written: the node does not start unaudited.
   */
  static async open(dir: string, logger: Logger, identity: AuditFields): Promise<NodeAudit> {
    const { log, cutOff } = await AuditLog.open({ dir, chain: 'node' });
    try {
      await log.append('node.started', {
        version: NODE_VERSION,
        ...identity,
        ...(cutOff !== undefined ? { cut_off_line: cutOff } : {}),
      });
    } catch (error) {
      await log.close();
      throw new Error(`the audit log ${log.file} cannot be written: ${(error as Error).message}`, {
        cause: error,
      });
    }
    logger.info({ event: 'audit.opened', file: log.file, head: log.head }, `audit log: ${log.file}`);
    return new NodeAudit(log, logger);
  }

  get file(): string {
    return this.#log.file;
  }

  /** Records that a run's container is about to start. Rejects when it cannot: the run must then not start. */
  async runStarted(f: RunStartFacts): Promise<AuditEntry> {
    // After a failure, writing must work again (and the loss be recorded) before anything runs.
    if (!(await this.#log.ensureWritable()))
      throw this.#log.failure ?? new Error(`the audit log ${this.#log.file} cannot be written`);
    return this.#record('run.started', {
      result_id: f.resultId,
      task_id: f.taskId,
      run_id: f.runId,
      image: f.image,
      image_id: f.imageId ?? null,
      image_digests: [...f.repoDigests],
      database: f.database ?? null,
      databases: [...f.databases],
      ...taskFacts(f.item),
    });
  }

  /** Records a run's outcome (every run that was taken on, started or not). */
  async runFinished(f: RunEndFacts): Promise<AuditEntry | undefined> {
    return this.#record('run.finished', {
      result_id: f.resultId,
      task_id: f.taskId,
      run_id: f.runId,
      image: f.image,
      status: f.status,
      ...(f.reason !== undefined ? { reason: f.reason.slice(0, 1000) } : {}),
      ...(f.outputBytes !== undefined ? { output_bytes: f.outputBytes } : {}),
      ...(f.initiator !== undefined ? { initiating_organization_id: f.initiator } : {}),
    }).catch(() => undefined);
  }

  /**
   * Records what the output policy did with a run's output (docs/output-control.md#audit): `output.checked`,
   * `output.suppressed`, `output.refused`, `output.held`, `output.released`, `output.release_refused`. Rules,
   * thresholds, ids and who decided; never a value of the output.
   */
  async output(event: OutputAuditEvent, fields: AuditFields): Promise<AuditEntry | undefined> {
    return this.#record(event, fields).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#stopHead();
    await this.#log.append('node.stopped', {}).catch(() => undefined);
    await this.#log.close();
    logAuditHead(this.#log, this.#logger);
  }

  #record(event: string, fields: AuditFields): Promise<AuditEntry> {
    return appendOrReport(this.#log, this.#logger, event, fields);
  }
}
