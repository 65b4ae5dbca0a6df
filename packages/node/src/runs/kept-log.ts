/**
 * `share_logs: false` (docs/run-logs.md): a run's container log stays at the node, in its log folder, and the
 * server is told only where it is. The node admin reads it with `vnode logs <run>`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { keptRunLogPath } from '@federa/common';

import { nodeNote } from './run-info.js';

/** Writes the log at the node and returns what the server gets instead: a note saying where it is. */
export async function keepRunLog(
  logDir: string,
  nodeName: string,
  resultId: number,
  log: string,
): Promise<string> {
  const file = join(logDir, keptRunLogPath(nodeName, resultId));
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, log, { mode: 0o600 });
  return nodeNote(
    `this node keeps the logs of its runs (share_logs: false); its admin reads this one with: vnode logs ${resultId}`,
  );
}
