/** Structured JSON logs (pino) to stdout and, when `logging.file` is set, to that file in the log dir. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import pino, { type Logger } from 'pino';

import type { NodeConfig } from './config/node-config.js';

export function createNodeLogger(
  config: Pick<NodeConfig, 'logLevel' | 'logFile' | 'name'>,
  stdout = true,
): Logger {
  const streams: pino.StreamEntry[] = [];
  if (stdout) streams.push({ level: config.logLevel, stream: pino.destination({ dest: 1, sync: false }) });
  if (config.logFile) {
    mkdirSync(dirname(config.logFile), { recursive: true });
    streams.push({
      level: config.logLevel,
      stream: pino.destination({ dest: config.logFile, sync: false, mkdir: true }),
    });
  }
  return pino(
    { level: config.logLevel, base: { node: config.name }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.multistream(streams),
  );
}
