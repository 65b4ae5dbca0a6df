/**
 * A small JSON file in the node's data dir with the runs this node has taken on and not yet reported. It is how a
 * restarted node finds the runs it must reattach or report, and how a resynchronisation skips runs in progress.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StoredOutputRef } from '@federa/common';

export type RunPhase = 'starting' | 'running' | 'reporting';

/**
 * A finished run's report, exactly as it is sent (PATCH /result/<id>, `RunReportBody` of `@federa/common`) but for
 * `upload`: kept until the server accepts it, and sent again after a restart (docs/reliability.md).
 */
export interface StoredReport {
  readonly status: string;
  /** The output, encrypted for the initiator (base64 when the collaboration is not encrypted); absent when stored. */
  readonly result?: string;
  readonly log: string;
  readonly finished_at: string;
  /** A large output (docs/large-results.md): uploaded from `upload` before the report, which names it. */
  readonly result_stored?: StoredOutputRef;
  /** The file of the encrypted large output (on this node; never sent in the report). */
  readonly upload?: string;
}

export interface RunRecord {
  readonly resultId: number;
  readonly taskId: number;
  readonly runId: number;
  readonly image: string;
  readonly containerName: string;
  readonly phase: RunPhase;
  /** ISO time the node took the run on. */
  readonly since: string;
  /** The task's W3C trace context: the span of the run resumed after a restart hangs from it. */
  readonly traceparent?: string;
  /** Set once the run has finished and its report is ready; the record goes when the server has accepted it. */
  readonly report?: StoredReport;
}

interface StoreFile {
  readonly version: 1;
  readonly runs: Record<string, RunRecord>;
}

export class RunStore {
  readonly #path: string;
  #runs = new Map<number, RunRecord>();
  #writing: Promise<void> = Promise.resolve();

  private constructor(path: string) {
    this.#path = path;
  }

  /** Opens (or starts) the store at `path`. An unreadable file is an error: a node must not forget runs silently. */
  static async open(path: string): Promise<RunStore> {
    const store = new RunStore(path);
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text !== undefined && text.trim() !== '') {
      let parsed: StoreFile;
      try {
        parsed = JSON.parse(text) as StoreFile;
      } catch (cause) {
        throw new Error(`the node's run record ${path} is not valid JSON; move it away to start without it`, {
          cause,
        });
      }
      for (const r of Object.values(parsed.runs ?? {})) store.#runs.set(r.resultId, r);
    }
    return store;
  }

  get path(): string {
    return this.#path;
  }

  has(resultId: number): boolean {
    return this.#runs.has(resultId);
  }

  get(resultId: number): RunRecord | undefined {
    return this.#runs.get(resultId);
  }

  all(): RunRecord[] {
    return [...this.#runs.values()].sort((a, b) => a.resultId - b.resultId);
  }

  async put(record: RunRecord): Promise<void> {
    this.#runs.set(record.resultId, record);
    await this.#flush();
  }

  async update(resultId: number, patch: Partial<Omit<RunRecord, 'resultId'>>): Promise<void> {
    const current = this.#runs.get(resultId);
    if (!current) return;
    this.#runs.set(resultId, { ...current, ...patch });
    await this.#flush();
  }

  async remove(resultId: number): Promise<void> {
    if (!this.#runs.delete(resultId)) return;
    await this.#flush();
  }

  /** Writes are serialised and atomic (temp file + rename). */
  #flush(): Promise<void> {
    const snapshot: StoreFile = {
      version: 1,
      runs: Object.fromEntries([...this.#runs].map(([id, r]) => [String(id), r])),
    };
    const next = this.#writing.then(async () => {
      await mkdir(dirname(this.#path), { recursive: true });
      const tmp = `${this.#path}.tmp`;
      await writeFile(tmp, JSON.stringify(snapshot, null, 2));
      await rename(tmp, this.#path);
    });
    this.#writing = next.catch(() => undefined);
    return next;
  }
}
