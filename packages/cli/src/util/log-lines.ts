/**
 * Readable log lines for `vserver attach` / `vnode attach` (docs/cli.md): the server and node write one JSON object
 * a line (pino); this shows `12:03:04 WARN  message  key=value …`. Lines that are not JSON pass as they are.
 */
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every line has, or that the line's head shows already. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'node', 'v']);

const show = (v: unknown): string => {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return /\s/.test(text) ? JSON.stringify(text) : text;
};

/** One log line made readable; `undefined` for an empty line. */
export function readableLine(line: string): string | undefined {
  const trimmed = line.replace(/\x1b\[[0-9;]*m/g, '').trimEnd();
  if (trimmed === '') return undefined;
  // The server's first start writes the generated root password to its terminal, which Docker keeps with its logs:
  // `vserver start` shows it that once, reading the logs again never does.
  if (/was created with the generated password: /.test(trimmed)) return undefined;
  if (!trimmed.startsWith('{')) return trimmed;
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(trimmed) as Record<string, unknown>;
  } catch {
    return trimmed;
  }
  const time =
    typeof rec.time === 'string' || typeof rec.time === 'number'
      ? new Date(rec.time).toISOString().slice(11, 19)
      : '        ';
  // The node writes pino's numbers, the server its labels ("warn").
  const level =
    typeof rec.level === 'number'
      ? (LEVELS[rec.level] ?? String(rec.level))
      : String(rec.level ?? '').toUpperCase();
  const rest = Object.entries(rec)
    .filter(([k]) => !HIDDEN.has(k))
    .map(([k, v]) => `${k}=${show(v)}`)
    .join(' ');
  return `${time} ${level.padEnd(5)} ${typeof rec.msg === 'string' ? rec.msg : ''}${rest ? `  ${rest}` : ''}`;
}

/** A stream that writes each complete line of its input, made readable, to `out`. */
export function readableLogStream(out: { write(text: string): unknown }): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      const lines = (pending + chunk.toString('utf8')).split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const l of lines) {
        const text = readableLine(l);
        if (text !== undefined) out.write(`${text}\n`);
      }
      done();
    },
    final(done) {
      const text = readableLine(pending);
      if (text !== undefined) out.write(`${text}\n`);
      done();
    },
  });
}
