/** The parts of the server's JSON the node reads (api.md §2). */

export interface Ref {
  readonly id: number;
  readonly link?: string;
}

export interface WireTask {
  readonly id: number;
  readonly name?: string;
  readonly image: string;
  readonly database?: string | null;
  readonly run_id: number;
  readonly initiator: number;
  readonly init_user?: number | null;
  readonly parent?: Ref | null;
  readonly collaboration?: Ref | null;
  readonly complete?: boolean;
}

/** A result in "result with task" form (`include=task`). */
export interface WireResultWithTask {
  readonly id: number;
  readonly input: string | null;
  readonly result?: string | null;
  readonly started_at?: string | null;
  readonly finished_at?: string | null;
  readonly status?: string | null;
  readonly task: WireTask;
}

export interface WireResult {
  readonly id: number;
  readonly finished_at?: string | null;
  readonly status?: string | null;
  readonly task: Ref | number;
}

export interface WireNode {
  readonly id: number;
  readonly name: string | null;
  readonly organization: Ref;
  readonly collaboration: Ref | null;
}

export interface WireOrganization {
  readonly id: number;
  readonly name: string | null;
  readonly public_key: string | null;
}

export interface WireCollaboration {
  readonly id: number;
  readonly name: string;
  readonly encrypted: boolean | number;
}

/** A list endpoint answers a bare array, or `{data: [...]}` with include=metadata. */
export const listOf = <T>(body: unknown): T[] =>
  Array.isArray(body)
    ? (body as T[])
    : body && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)
      ? (body as { data: T[] }).data
      : [];

export const refId = (r: Ref | number | null | undefined): number | undefined =>
  typeof r === 'number' ? r : r?.id;

/** Node-local wall-clock time as 3.x nodes send it: `YYYY-MM-DDTHH:MM:SS.ffffff`. */
export function localTimestamp(date = new Date()): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}.${p(date.getMilliseconds(), 3)}000`;
}
