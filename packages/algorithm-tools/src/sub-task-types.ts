/** What the algorithm client's sub-task and VPN methods take and give. */

/** A new sub-task. */
export interface SubTaskSpec {
  /** The organizations that run it. */
  readonly organizations: readonly number[];
  /**
   * The input: bytes as they are, or any JSON value, sent as `json.` + JSON (Python pickles are not available in
   * TypeScript), e.g. `{method: 'partial_average', kwargs: {column: 'age'}, output_format: 'json'}`.
   */
  readonly input: unknown;
  /** @default "subtask" */
  readonly name?: string;
  /** @default a text naming this node */
  readonly description?: string;
}

/** One organization's output of a sub-task. */
export interface SubTaskResult {
  /** The result id. */
  readonly id: number;
  /** The organization that produced it. */
  readonly organizationId: number;
  /** The output: the value of a `json.` output, otherwise the raw bytes (`Buffer`); `null` when empty. */
  readonly output: unknown;
  /** The run's status (`completed`, `crashed`, …) when the server reports one. */
  readonly status: string | null;
  /** The algorithm's log. */
  readonly log: string | null;
}

/** How to wait for a sub-task. */
export interface SubTaskWaitOptions {
  /**
   * Longest pause between two checks of `GET /task/{id}` (the first checks come sooner: 200 ms, doubling).
   * @default 1000
   */
  readonly intervalMs?: number;
  /**
   * Give up after this long; `Infinity` waits as long as it takes.
   * @default 600000 (10 minutes)
   */
  readonly timeoutMs?: number;
  /** Aborts the wait. */
  readonly signal?: AbortSignal;
}

/** The method call a sub-task runs (the input of `createTask` and `run`). */
export interface SubTaskInput {
  readonly method: string;
  readonly args?: readonly unknown[];
  readonly kwargs?: Readonly<Record<string, unknown>>;
}

export interface CreateTaskOptions {
  readonly organizations: readonly number[];
  readonly input: SubTaskInput;
  readonly name?: string;
  readonly description?: string;
}

/** @deprecated name kept for algorithms written against the first release; use SubTaskWaitOptions. */
export type WaitOptions = SubTaskWaitOptions;

/** Which runs' VPN addresses `AlgorithmClient.getAddresses` returns. */
export interface AddressQuery {
  readonly label?: string;
  readonly includeChildren?: boolean;
  readonly includeParent?: boolean;
  readonly onlyChildren?: boolean;
  readonly onlyParent?: boolean;
}

/** Where another algorithm listens on the VPN. */
export interface AlgorithmAddress {
  readonly ip: string | null;
  readonly port: number;
  readonly label: string | null;
  readonly organization_id: number;
  readonly task_id: number;
  readonly parent_id: number | null;
}
