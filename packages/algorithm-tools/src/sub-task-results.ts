/** Reading a sub-task's results: list answers, decoded outputs, and the check that every run succeeded. */
import { AlgorithmClientError } from './algorithm-client-errors.js';
import { detectFormat } from './payload.js';
import type { SubTaskResult } from './sub-task-types.js';

/** The items of a list answer (a bare array, or `{data: [...]}`). */
export const listBody = <T>(body: unknown): T[] =>
  (Array.isArray(body) ? body : ((body as { data?: unknown[] } | null)?.data ?? [])) as T[];

const idOf = (ref: number | { id: number }): number => (typeof ref === 'number' ? ref : ref.id);

/** Output bytes: `json.` payloads become their value; anything else (a pickle, other formats) stays bytes. */
function decodeOutput(bytes: Buffer): unknown {
  const { format, body } = detectFormat(bytes);
  return format === 'json' ? (JSON.parse(Buffer.from(body).toString('utf8')) as unknown) : bytes;
}

/** The results of `GET /task/{id}/result` with their outputs decoded. */
export function decodeResults(body: unknown): SubTaskResult[] {
  const items = listBody<{
    id: number;
    organization: number | { id: number };
    result: string | null;
    status?: string | null;
    log?: string | null;
  }>(body);
  return items.map((item) => ({
    id: item.id,
    organizationId: idOf(item.organization),
    output: item.result ? decodeOutput(Buffer.from(item.result, 'base64')) : null,
    status: item.status ?? null,
    log: item.log ?? null,
  }));
}

/**
 * The outputs of a task's runs; a run that did not succeed (a status other than `completed`, or no output and no
 * status) throws with the tail of its log, even when it left some output.
 */
export function successfulOutputs<T>(
  taskId: number,
  results: readonly SubTaskResult[],
): { organization: number; status: string | null; value: T }[] {
  return results.map((r) => {
    if (r.status ? r.status !== 'completed' : r.output === null) {
      const log = (r.log ?? '').trimEnd();
      const tail = log.length <= 1500 ? log : `...${log.slice(-1500)}`;
      throw new AlgorithmClientError(
        `sub-task ${taskId}: the run of organization ${r.organizationId} did not succeed (${r.status ?? 'no output'})` +
          (tail ? `; log tail:\n${tail}` : ''),
      );
    }
    return { organization: r.organizationId, status: r.status, value: r.output as T };
  });
}
