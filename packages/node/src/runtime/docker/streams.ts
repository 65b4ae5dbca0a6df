/**
 * Reading what the engine streams back: progress of a pull, the multiplexed stdout/stderr of logs and exec, and a
 * time limit on any engine call.
 */
import { PassThrough, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type Docker from 'dockerode';

/** Rejects with `onTimeout()` when `promise` has not settled within `ms` (the work itself goes on). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Read a progress stream (pull/push) to its end; resolves with the first error message the engine reported. */
export async function drainProgress(stream: NodeJS.ReadableStream): Promise<string | undefined> {
  let text = '';
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (chunk: Buffer | string) => {
      text += chunk.toString();
    });
    stream.on('end', () => resolve());
    stream.on('error', reject);
  });
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const event = JSON.parse(line) as { error?: unknown; errorDetail?: { message?: unknown } };
      if (typeof event.error === 'string') return event.error;
      if (typeof event.errorDetail?.message === 'string') return event.errorDetail.message;
    } catch {
      // not JSON: ignore
    }
  }
  return undefined;
}

/** A sink that keeps what is written to it, and the text of it. */
function collector(): { sink: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  return { sink, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * stdout and stderr of a finished container's log, which the engine multiplexes in frames without a TTY:
 * demultiplexed into one text, in order.
 */
export async function demuxLog(modem: Docker['modem'], raw: unknown): Promise<string> {
  const { sink, text } = collector();
  const source = new PassThrough();
  const ended = new Promise<void>((resolve, reject) => {
    source.on('end', resolve);
    source.on('error', reject);
  });
  modem.demuxStream(source, sink, sink);
  source.end(Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw)));
  source.resume();
  await ended;
  return text();
}

/** Reads a live multiplexed stream (an exec's output) to its end, demultiplexed into one text. */
export async function demuxStreamToEnd(
  modem: Docker['modem'],
  stream: NodeJS.ReadableStream,
): Promise<string> {
  const { sink, text } = collector();
  modem.demuxStream(stream, sink, sink);
  await new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
  });
  return text();
}

/**
 * Reads a live multiplexed stream (a followed log), demultiplexed, handing each piece of text to `onText` (UTF-8
 * sequences split across frames are kept whole). Ends with the stream, or when `signal` aborts (the stream is
 * closed).
 */
export async function followStream(
  modem: Docker['modem'],
  stream: NodeJS.ReadableStream & { destroy?: () => void },
  onText: (text: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const decoder = new StringDecoder('utf8');
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const text = decoder.write(Buffer.from(chunk));
      if (text !== '') onText(text);
      callback();
    },
  });
  modem.demuxStream(stream, sink, sink);
  await new Promise<void>((resolve) => {
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = (): void => {
      stream.destroy?.();
      done();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stream.on('end', done);
    stream.on('close', done);
    stream.on('error', done);
  });
  const rest = decoder.end();
  if (rest !== '' && !signal.aborted) onText(rest);
}
