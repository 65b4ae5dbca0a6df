import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import pino, { type DestinationStream, type Level, type Logger, type LevelWithSilent } from 'pino';
import type { ServerConfig } from './config/schema.js';

/** vantage6 (Python) level names of `logging.level` and the pino level each maps to. */
const LEVELS: Record<string, LevelWithSilent> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
  CRITICAL: 'fatal',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
  silent: 'silent',
};

/** The pino level of a configured `logging.level` (Python or pino names). */
export const pinoLevel = (configured: string): LevelWithSilent => LEVELS[configured] ?? 'info';

export interface LoggingOptions {
  logging: ServerConfig['logging'];
  /** The log directory: `directories.log`, else `$XDG_CACHE_HOME/federa/log/server` (docs/cli.md#where-files-live). */
  logDir: string;
  /** File name used when `logging.file` is not set. */
  defaultFile: string;
  /** Where console output goes. @default process.stdout */
  console?: DestinationStream;
  /** Write the file even when `logging.file` is not set. @default false */
  forceFile?: boolean;
}

export interface ServerLogger {
  log: Logger;
  /** The log file, when one is written. */
  file: string | null;
  /** Writes out buffered lines (call before the process exits). */
  flush(): void;
}

/** `directories.log`, else the per-user cache folder for server logs. */
export function defaultLogDir(env: NodeJS.ProcessEnv): string {
  const cache =
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== ''
      ? env.XDG_CACHE_HOME
      : join(env.HOME ?? homedir(), '.cache');
  return join(cache, 'federa', 'log', 'server');
}

/**
 * Structured JSON logs (one object per line, ISO time, `level` as a name). Console output unless
 * `logging.use_console` is false; a file in the log directory when `logging.file` is set, when console output is
 * off, or when `forceFile` asks for it. Rotation (`max_size`, `backup_count`) is left to the host (logrotate).
 */
export function createServerLogger(options: LoggingOptions): ServerLogger {
  const level = pinoLevel(options.logging.level);
  const streams: { level: Level; stream: DestinationStream }[] = [];
  const streamLevel: Level = level === 'silent' ? 'fatal' : level;
  if (options.logging.use_console)
    streams.push({ level: streamLevel, stream: options.console ?? process.stdout });
  let file: string | null = null;
  let fileStream: ReturnType<typeof pino.destination> | null = null;
  if (options.logging.file || !options.logging.use_console || options.forceFile) {
    mkdirSync(options.logDir, { recursive: true });
    file = resolve(options.logDir, options.logging.file ?? options.defaultFile);
    fileStream = pino.destination({ dest: file, mkdir: true, sync: true });
    streams.push({ level: streamLevel, stream: fileStream });
  }
  const log = pino(
    {
      name: 'federa-server',
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ['password', '*.password', 'req.headers.authorization'], censor: '[redacted]' },
    },
    pino.multistream(streams),
  );
  return {
    log,
    file,
    flush: () => {
      try {
        fileStream?.flushSync();
      } catch {
        /* nothing buffered */
      }
    },
  };
}
