/**
 * Reporting a finished run (docs/node-protocol.md#running-a-result): the output encrypted for the task's initiator (base64 when the
 * collaboration is not encrypted), the container log (sealed for the initiator when it is, docs/run-logs.md), the
 * finish time and the status, in one PATCH.
 *
 * A report is made once (`prepare`), kept in the run store by the caller, and sent until the server takes it
 * (`deliver`): a 5xx answer or an unreachable server is never final, and a report is idempotent, so sending it
 * again after an accepted one is harmless (docs/reliability.md).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { sealLog, type Cryptor, type RunReportBody } from '@federa/common';

import { ServerRequestError } from '../errors.js';
import { persist } from '../server-client/persist.js';
import type { RestClient } from '../server-client/rest-client.js';
import {
  localTimestamp,
  refId,
  type WireOrganization,
  type WireResult,
  type WireTask,
} from '../server-client/wire.js';
import type { StoredReport } from './run-store.js';
import { sealOutput, type SealedOutput } from './sealed-output.js';
import type { RunStatusValue } from './run-status.js';
import { nodeNote } from './run-info.js';

export interface RunOutcome {
  readonly status: RunStatusValue;
  readonly output: Uint8Array;
  /** A large output left in its file (docs/large-results.md): sent as a stream instead of `output`. */
  readonly outputFile?: { readonly path: string; readonly size: number };
  readonly log: string;
  /** Why a run did not complete, for the node's log line (the run's log says it too). */
  readonly reason?: string;
}

/** An organization's public key and when it was read from the server. */
export interface RecipientKey {
  readonly publicKey: string;
  readonly fetchedAt: number;
}

/** A key looked up while the algorithm ran is used when it is younger than this; else it is read again. */
export const KEY_MAX_AGE_MS = 10_000;

export class RunReporter {
  readonly #rest: RestClient;
  readonly #cryptor: Cryptor;
  readonly #log: Logger;
  readonly #signal: AbortSignal;

  constructor(rest: RestClient, cryptor: Cryptor, log: Logger, signal: AbortSignal) {
    this.#rest = rest;
    this.#cryptor = cryptor;
    this.#log = log;
    this.#signal = signal;
  }

  #persist<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return persist(fn, { what, signal: this.#signal, log: this.#log });
  }

  /** PATCH a status change of a run that goes on (initializing, active); retried while the server answers 5xx. */
  async status(resultId: number, fields: RunReportBody): Promise<void> {
    await this.#persist(`status of result ${resultId}`, () =>
      this.#rest.patch(`/result/${resultId}`, fields),
    );
  }

  /** The public key of the task's initiator (looked up through the result and its task when not known). */
  async recipientKey(resultId: number, knownInitiator?: number): Promise<RecipientKey> {
    return this.#persist(`initiator's key for result ${resultId}`, async () => {
      let initiator = knownInitiator;
      if (initiator === undefined) {
        const res = await this.#rest.get<WireResult>(`/result/${resultId}`);
        const task = await this.#rest.get<WireTask>(`/task/${String(refId(res.task))}`);
        initiator = task.initiator;
      }
      const org = await this.#rest.get<WireOrganization>(`/organization/${initiator}`);
      return { publicKey: org.public_key ?? '', fetchedAt: Date.now() };
    });
  }

  /**
   * The report of an outcome, its output encrypted for the task's initiator. `key`: the initiator's key looked up
   * earlier (used when younger than KEY_MAX_AGE_MS, else looked up again). Undefined when the result no longer
   * exists on the server: nothing to report then. Only a run's own failure makes a `failed` report: a server
   * that answers 5xx is asked again.
   */
  async prepare(
    resultId: number,
    outcome: RunOutcome,
    knownInitiator?: number,
    key?: Promise<RecipientKey>,
  ): Promise<StoredReport | undefined> {
    let { status, log } = outcome;
    let result = '';
    let sealed: SealedOutput | undefined;
    try {
      const early = key ? await key.catch(() => undefined) : undefined;
      const recipient =
        early && Date.now() - early.fetchedAt < KEY_MAX_AGE_MS
          ? early
          : await this.recipientKey(resultId, knownInitiator);
      if (outcome.outputFile)
        sealed = await sealOutput(
          this.#cryptor,
          recipient.publicKey,
          outcome.outputFile.path,
          `${outcome.outputFile.path}.sealed`,
        );
      else result = this.#cryptor.encryptBytesToString(outcome.output, recipient.publicKey);
      // An encrypted collaboration's log is sealed for the initiator like the output (docs/run-logs.md).
      if (this.#cryptor.encrypted) log = sealLog(this.#cryptor, log, recipient.publicKey);
    } catch (error) {
      if (error instanceof ServerRequestError && error.status === 404) {
        this.#log.warn(
          { event: 'run.gone', result_id: resultId },
          'the result no longer exists on the server; nothing to report',
        );
        return undefined;
      }
      if (this.#signal.aborted) throw error;
      this.#log.error(
        { event: 'run.encrypt_failed', result_id: resultId, err: (error as Error).message },
        'cannot encrypt the result for the initiator',
      );
      status = 'failed';
      const note = nodeNote(
        `the output could not be encrypted for the task's initiator: ${(error as Error).message}`,
      );
      // Unsealed, the container's log would reach the server as plain text: only the note goes then.
      log = this.#cryptor.encrypted ? note : `${log}\n${note}`;
      result = '';
      sealed = undefined;
    }
    if (sealed)
      return {
        status,
        log,
        finished_at: localTimestamp(),
        result_stored: { sha256: sealed.sha256, size: sealed.size },
        upload: sealed.file,
      };
    return { status, result, log, finished_at: localTimestamp() };
  }

  /**
   * Sends a report until the server gives a final answer. Returns false when the server refuses it because the run
   * is finished already (killed meanwhile, or this very report accepted before a restart) or gone.
   */
  async deliver(resultId: number, report: StoredReport): Promise<boolean> {
    const { upload, ...stored } = report;
    let body: RunReportBody = stored;
    if (upload !== undefined && stored.result_stored) {
      const uploaded = await this.#upload(resultId, upload, stored.result_stored);
      if (uploaded === 'refused') return false;
      if (uploaded === 'unsupported') {
        // A server without the large path (vantage6): the output goes inline, as 3.x; it is held whole then.
        const { result_stored: _named, ...inline } = stored;
        body = { ...inline, result: await readFile(upload, 'latin1') };
      }
    }
    const answer = await this.#persist(`report of result ${resultId}`, async () => {
      const a = await this.#rest.request('PATCH', `/result/${resultId}`, { body, allowError: true });
      if (a.status >= 500 || a.status === 429)
        throw new ServerRequestError('PATCH', `/result/${resultId}`, a.status, a.body);
      return a;
    });
    if (answer.status <= 210) return true;
    if (answer.status === 400 || answer.status === 404) {
      this.#log.warn(
        { event: 'run.report_refused', result_id: resultId, status: answer.status, body: answer.body },
        'the server refused the report (the run is finished already, or gone)',
      );
      return false;
    }
    throw new ServerRequestError('PATCH', `/result/${resultId}`, answer.status, answer.body);
  }

  /**
   * Uploads a large output (`PUT /result/{id}/output`, docs/large-results.md) until the server has it whole: a cut,
   * a 5xx (a full store too) or an unreachable server is tried again, the file read afresh each time. False when the
   * server refuses it for good (the run finished meanwhile, or is gone).
   */
  async #upload(
    resultId: number,
    file: string,
    stored: { sha256: string; size: number },
  ): Promise<'uploaded' | 'refused' | 'unsupported'> {
    const path = `/result/${resultId}/output`;
    const started = Date.now();
    const answer = await this.#persist(`output of result ${resultId}`, async () => {
      const a = await this.#rest.request('PUT', path, {
        upload: {
          open: () => createReadStream(file, { highWaterMark: 1024 * 1024 }),
          headers: { 'x-federa-sha256': stored.sha256, 'content-length': String(stored.size) },
        },
        allowError: true,
      });
      if (a.status >= 500 || a.status === 429) throw new ServerRequestError('PUT', path, a.status, a.body);
      return a;
    });
    if (answer.status <= 210) {
      this.#log.info(
        { event: 'run.output_uploaded', result_id: resultId, bytes: stored.size, ms: Date.now() - started },
        'large output uploaded',
      );
      return 'uploaded';
    }
    const code = (answer.body as { code?: unknown } | null)?.code;
    if ((answer.status === 404 || answer.status === 405) && code !== 'not_found') {
      this.#log.warn(
        { event: 'run.output_inline', result_id: resultId, status: answer.status, bytes: stored.size },
        'the server has no upload of large outputs; the output goes in the report, as vantage6 3.x',
      );
      return 'unsupported';
    }
    // 409: the run has finished or was killed meanwhile (docs/large-results.md).
    if (answer.status === 400 || answer.status === 404 || answer.status === 409) {
      this.#log.warn(
        { event: 'run.report_refused', result_id: resultId, status: answer.status, body: answer.body },
        'the server refused the output (the run is finished already, or gone)',
      );
      return 'refused';
    }
    throw new ServerRequestError('PUT', path, answer.status, answer.body);
  }
}
