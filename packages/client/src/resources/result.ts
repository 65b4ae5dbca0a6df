import { SealedLogOpener, decodeBase64Lenient, isSealedLog, type Cryptor } from '@federa/common';

import { FederaClientError } from '../errors.js';
import { deserializePayload } from '../payload.js';
import type { DecryptedResult, Page, Result } from '../types.js';
import { ResourceGroup, type ListOptions } from './base.js';
import { followRunLog, type LogOptions, type RunLogView } from './result-logs.js';

/** Filters of `GET /result`. */
export interface ResultFilters {
  taskId?: number;
  organizationId?: number;
  /** Results addressed to this node's organization within its collaboration. */
  nodeId?: number;
  /** `open`: only results that have not finished. */
  state?: 'open';
  /** ISO-8601 date-time bounds of `assigned_at`, `started_at`, `finished_at`. */
  assignedFrom?: string;
  assignedTill?: string;
  startedFrom?: string;
  startedTill?: string;
  finishedFrom?: string;
  finishedTill?: string;
}

/**
 * The plaintext bytes of a stored output. The form tells the mode: an encrypted string is three base64 parts
 * joined by `$` and needs the private key; anything else is plain base64 (unencrypted collaborations).
 */
export function outputBytes(cryptor: Cryptor | null, text: string): Buffer {
  if (!text.includes('$')) return decodeBase64Lenient(text, 'the unencrypted output');
  if (cryptor === null) {
    throw new FederaClientError(
      'This output is encrypted: call setupEncryption(privateKeyPath) with the private key of the organization ' +
        'that created the task, then read it again.',
    );
  }
  return cryptor.decryptStringToBytes(text);
}

/**
 * Opens the logs of one run with the key given to `setupEncryption` (docs/run-logs.md#encrypted-collaborations): a
 * sealed log is decrypted (only what was added since the last call, for a followed log), a plain one kept as is.
 */
export function logOpener(cryptor: Cryptor | null): (log: string) => string {
  let opener: SealedLogOpener | null = null;
  return (log) => {
    if (!isSealedLog(log)) return log;
    if (cryptor === null) {
      throw new FederaClientError(
        "This run's log is encrypted for the organization that created the task: call setupEncryption(privateKeyPath) " +
          "with that organization's private key, then read it again.",
      );
    }
    opener ??= new SealedLogOpener(cryptor);
    return opener.open(log);
  };
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Decrypts and parses the `result` of one item, and opens a sealed `log`. Failures are recorded in
 * `decryptionError` (the raw string is kept) unless `strict`, in which case they are thrown.
 */
export function decryptResult(cryptor: Cryptor | null, item: Result, strict: boolean): DecryptedResult {
  const ids = {
    taskId: typeof item.task === 'number' ? item.task : item.task.id,
    organizationId: typeof item.organization === 'number' ? item.organization : item.organization.id,
  };
  const problems: string[] = [];
  let log = item.log;
  if (isSealedLog(log)) {
    try {
      log = logOpener(cryptor)(log);
    } catch (error) {
      if (strict) throw error;
      problems.push(`the log of result ${item.id}: ${reasonOf(error)}`);
    }
  }
  const done = (result: unknown): DecryptedResult => ({
    ...item,
    ...ids,
    log,
    result,
    ...(problems.length > 0 ? { decryptionError: problems.join('; ') } : {}),
  });
  if (item.result === null || item.result === '') return done(null);
  try {
    return done(deserializePayload(outputBytes(cryptor, item.result)));
  } catch (error) {
    if (strict) throw error;
    problems.unshift(`result ${item.id}: ${reasonOf(error)}`);
    return done(item.result);
  }
}

/**
 * `client.result`: the runs of tasks, one per organization. Reading a result decrypts its output with the key
 * given to `setupEncryption` and parses `json.` outputs into values; other outputs (Python pickles) stay bytes.
 */
export class ResultResource extends ResourceGroup {
  /**
   * Lists results, reading every page unless `options.page` is given. An output that cannot be decrypted
   * (e.g. it was encrypted for another organization) keeps its raw string and gets a `decryptionError`.
   */
  async list(filters?: ResultFilters, options?: ListOptions): Promise<DecryptedResult[]> {
    const items = await this.listAt<Result>('/result', filters, options);
    return this.#decryptAll(items);
  }

  /** Reads one page of results with the total count (outputs decrypted as in {@link list}). */
  async listPage(
    filters?: ResultFilters,
    options?: { page?: number; perPage?: number },
  ): Promise<Page<DecryptedResult>> {
    const page = await this.pageAt<Result>('/result', filters, options);
    return { ...page, items: this.#decryptAll(page.items) };
  }

  /**
   * Reads one result and decrypts its output.
   * @throws NotFoundError when it does not exist; EncryptionError when the output cannot be decrypted.
   */
  async get(id: number): Promise<DecryptedResult> {
    const item = await this.getJson<Result>(`/result/${id}`);
    return decryptResult(this.ctx.cryptor(), item, true);
  }

  /** Reads the results of one task (`GET /task/{id}/result`), outputs decrypted as in {@link list}. */
  async fromTask(taskId: number, options?: ListOptions): Promise<DecryptedResult[]> {
    const items = await this.listAt<Result>(
      `/task/${taskId}/result`,
      {},
      options,
      this.ctx.traces.of(taskId),
    );
    return this.#decryptAll(items);
  }

  /**
   * The run's log (docs/run-logs.md): without `follow`, the log as it is now (one piece, none when empty); with
   * `follow: true`, each new piece as the run prints it, ending when the run has finished. Followed on the server's
   * socket events (`run_log_update`), polling every `intervalMs` only when no socket is connected. A log sealed in
   * an encrypted collaboration is decrypted with the key given to `setupEncryption`.
   * @throws FederaClientError when the log is sealed and no key was set up; EncryptionError with a wrong key.
   *
   * ```ts
   * for await (const piece of client.result.logs(id, { follow: true })) process.stdout.write(piece);
   * ```
   */
  logs(id: number, options: LogOptions = {}): AsyncGenerator<string> {
    const subscribe = this.ctx.subscribe;
    return followRunLog(
      () => this.getJson<RunLogView>(`/result/${id}`),
      options,
      subscribe ? { resultId: id, subscribe: (onEvent) => subscribe(onEvent) } : null,
      logOpener(this.ctx.cryptor()),
    );
  }

  /**
   * Opens the output of a run as it is on the server (`GET /result/{id}/output`, docs/large-results.md): the text of
   * `result` (encrypted for the initiator, or base64), as a stream, whether the server holds it inline or in its
   * result store. `readResultOutput` and `saveResultOutput` (Node.js) decrypt it as it comes.
   */
  async openOutput(
    id: number,
  ): Promise<{ size: number; sha256: string; stream: ReadableStream<Uint8Array> }> {
    const answer = await this.ctx.session.request({ method: 'GET', path: `/result/${id}/output`, raw: true });
    return {
      size: Number(answer.headers.get('content-length') ?? 0),
      sha256: answer.headers.get('x-federa-sha256') ?? '',
      stream: answer.body as ReadableStream<Uint8Array>,
    };
  }

  /** Reads results without decrypting them (e.g. to look at `log` or `status` without a key). */
  listRaw(filters?: ResultFilters, options?: ListOptions): Promise<Result[]> {
    return this.listAt<Result>('/result', filters, options);
  }

  #decryptAll(items: Result[]): DecryptedResult[] {
    const cryptor = this.ctx.cryptor();
    return items.map((item) => decryptResult(cryptor, item, false));
  }
}
