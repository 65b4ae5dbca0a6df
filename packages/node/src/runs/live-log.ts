/**
 * A run's live log (docs/run-logs.md): the container's stdout and stderr, followed while it runs and sent to the
 * server in batches. One batch is in flight at a time and the next waits for the server's answer (back-pressure);
 * text that arrives meanwhile waits here, up to `maxPendingChars`, beyond which it is left out and counted. The
 * final report carries the whole container log again, so nothing is sent after the container exits.
 */
import type { Logger } from 'pino';
import type { RunLogAck, RunLogBatch } from '@federa/common';

import type { ContainerHandle, ContainerRuntime } from '../runtime/index.js';
import { ContainerLines } from './container-lines.js';
import { nodeNote } from './run-info.js';

/** Sends one batch and resolves with the server's answer; rejects when it cannot be sent or is not answered. */
export type LogBatchSender = (batch: RunLogBatch) => Promise<RunLogAck>;

export interface LiveLogOptions {
  readonly runtime: ContainerRuntime;
  readonly handle: ContainerHandle;
  readonly resultId: number;
  readonly send: LogBatchSender;
  readonly log: Logger;
  /**
   * Seals a piece of log for the task's initiator (an encrypted collaboration, docs/run-logs.md): each batch is then
   * the sealed piece, with `plain_length`. Absent: plain text.
   */
  readonly seal?: ((text: string) => string) | undefined;
  /**
   * The most characters in one batch.
   * @default 16384
   */
  readonly batchChars?: number;
  /**
   * How long text waits for more before it is sent (ms).
   * @default 500
   */
  readonly intervalMs?: number;
  /**
   * The most characters waiting to be sent; more is left out (and a note says how much).
   * @default 1048576
   */
  readonly maxPendingChars?: number;
}

export class LiveLog {
  readonly #o: Required<Omit<LiveLogOptions, 'seal'>> & Pick<LiveLogOptions, 'seal'>;
  readonly #abort = new AbortController();
  #pending = '';
  /** The container's lines that begin like the node's are marked (container-lines.ts). */
  readonly #lines = new ContainerLines();
  /** Characters the server has taken (the offset of the next batch). */
  #sent = 0;
  #dropped = 0;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: LiveLogOptions) {
    this.#o = { batchChars: 16_384, intervalMs: 500, maxPendingChars: 1_048_576, ...options };
  }

  /** Starts following the container's log and sending it. */
  start(): void {
    const { runtime, handle, log, resultId } = this.#o;
    runtime
      .followLogs(handle, (text) => this.#add(text), this.#abort.signal)
      .catch((e: unknown) =>
        log.warn(
          { event: 'run.live_log_follow_failed', result_id: resultId, err: String(e) },
          'the container log could not be followed; the run log arrives with its report',
        ),
      );
    this.#loop = this.#sendLoop();
  }

  /** Stops following and sending (what was not sent arrives with the final report). */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.#wake?.();
    await this.#loop;
  }

  #add(piece: string): void {
    const text = this.#lines.push(piece);
    if (this.#pending.length + text.length > this.#o.maxPendingChars) {
      const room = Math.max(0, this.#o.maxPendingChars - this.#pending.length);
      this.#pending += text.slice(0, room);
      this.#dropped += text.length - room;
    } else this.#pending += text;
    if (this.#pending.length >= this.#o.batchChars) this.#wake?.();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  async #sendLoop(): Promise<void> {
    const { send, resultId, batchChars, intervalMs, log, seal } = this.#o;
    const signal = this.#abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      if (this.#pending.length < batchChars)
        await this.#sleep(failures > 0 ? Math.min(5_000, intervalMs * 2 ** failures) : intervalMs);
      if (signal.aborted) return;
      if (this.#pending === '' && this.#dropped > 0) {
        this.#pending = nodeNote(
          `${this.#dropped} characters of log were left out while the server was slow`,
        );
        this.#dropped = 0;
      }
      if (this.#pending === '') continue;
      const text = this.#pending.slice(0, batchChars);
      let batch: RunLogBatch;
      try {
        batch = seal
          ? { result_id: resultId, offset: this.#sent, text: seal(text), plain_length: text.length }
          : { result_id: resultId, offset: this.#sent, text };
      } catch (e) {
        // Never sent as plain text instead: the log arrives (sealed, or left out) with the final report.
        log.warn(
          { event: 'run.live_log_seal_failed', result_id: resultId, err: String(e) },
          'the live log cannot be sealed for the task initiator; it is not streamed',
        );
        this.#abort.abort();
        return;
      }
      let ack: RunLogAck;
      try {
        ack = await send(batch);
        failures = 0;
      } catch {
        failures++;
        continue;
      }
      if (ack.ok || ack.offset > this.#sent) {
        // Taken (or taken before, by an earlier send or an earlier node process): what the server has goes.
        this.#pending = this.#pending.slice(Math.min(this.#pending.length, ack.offset - this.#sent));
        this.#sent = ack.offset;
      } else if (!ack.stop) this.#sent = ack.offset;
      if (ack.stop) {
        log.info(
          {
            event: 'run.live_log_stopped',
            result_id: resultId,
            offset: ack.offset,
            reason: ack.error ?? 'cap reached',
          },
          'the server takes no more live log of this run',
        );
        this.#abort.abort();
        return;
      }
    }
  }
}
