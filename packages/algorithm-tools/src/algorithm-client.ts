/**
 * The client an algorithm container uses to talk to its node's proxy (docs/container-environment.md#the-proxy-and-the-container-token): create
 * sub-tasks, wait for them and read their results, list the collaboration's organizations. The proxy is at `HOST`,
 * `PORT`, `API_PATH`; the container token is in the file named by `TOKEN_FILE`.
 *
 * The proxy does the encryption: inputs go to it as base64 of the plaintext bytes and results come back as base64
 * of the plaintext bytes, so this client never holds a key.
 *
 * This is the only implementation of the container side in Federa: `@federa/client` re-exports it with its own
 * error classes (see `AlgorithmClientErrors`). It depends on nothing but Node, because it is copied alone into
 * algorithm images.
 */
import { readFileSync } from 'node:fs';

import { detectFormat, encodeJsonPayload } from './payload.js';

/** Who the container is: the identity inside its token. */
export interface ContainerIdentity {
  /** The node that runs the container. */
  readonly nodeId: number;
  /** That node's organization (sub-task results are encrypted for it). */
  readonly organizationId: number;
  /** The collaboration of the task. */
  readonly collaborationId: number;
  /** The task the container runs for; sub-tasks get it as parent. */
  readonly taskId: number;
  /** The task's image; sub-tasks use it too. */
  readonly image: string;
  /** The task's database label (`null` from servers that do not put it in the token). */
  readonly database: string | null;
}

/** What a refused request was (status of the answer, the server's message and its body). */
export interface ProxyRefusal {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  /** `msg` (or `message`) of the answer, else its text. */
  readonly serverMessage: string;
  /** The parsed JSON body, or `null`. */
  readonly body: unknown;
}

/**
 * How failures are reported. The defaults throw the error classes below; `@federa/client` passes its own
 * (FederaApiError, ConnectionError, WaitTimeoutError, FederaClientError).
 */
export interface AlgorithmClientErrors {
  /** The proxy (or the server behind it) answered with a status above 210. */
  refused(refusal: ProxyRefusal): Error;
  /** The proxy could not be reached, or did not answer in time. */
  unreachable(host: string, port: number, reason: string, cause: unknown): Error;
  /** A sub-task did not complete in time. */
  timeout(taskId: number, timeoutMs: number): Error;
  /** The environment or the token is not what a node gives a container. */
  invalid(message: string, cause?: unknown): Error;
}

/** Base class of the errors of this client. */
export class AlgorithmClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The proxy refused a request. */
export class ProxyRequestError extends AlgorithmClientError implements ProxyRefusal {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly serverMessage: string;
  readonly body: unknown;

  constructor(refusal: ProxyRefusal) {
    super(`${refusal.method} ${refusal.path} answered ${refusal.status}: ${refusal.serverMessage}`);
    ({
      status: this.status,
      method: this.method,
      path: this.path,
      serverMessage: this.serverMessage,
      body: this.body,
    } = refusal);
  }
}

export class ProxyUnreachableError extends AlgorithmClientError {
  constructor(
    readonly host: string,
    readonly port: number,
    reason: string,
    cause: unknown,
  ) {
    super(`Could not reach the node's proxy at ${host}:${port} (${reason}).`, { cause });
  }
}

export class SubTaskTimeoutError extends AlgorithmClientError {
  constructor(
    readonly taskId: number,
    readonly timeoutMs: number,
  ) {
    super(`Sub-task ${taskId} did not complete within ${timeoutMs} ms.`);
  }
}

export const DEFAULT_ERRORS: AlgorithmClientErrors = {
  refused: (r) => new ProxyRequestError(r),
  unreachable: (host, port, reason, cause) => new ProxyUnreachableError(host, port, reason, cause),
  timeout: (taskId, ms) => new SubTaskTimeoutError(taskId, ms),
  invalid: (message, cause) => new AlgorithmClientError(message, { cause }),
};

/** Where the proxy is and which token to use. */
export interface AlgorithmClientOptions {
  /** Scheme and host of the proxy, e.g. `http://proxyserver` (env `HOST`). */
  readonly host: string;
  /** Port of the proxy, e.g. `8080` (env `PORT`). */
  readonly port: number | string;
  /**
   * Path prefix of the proxy (env `API_PATH`).
   * @default ""
   */
  readonly apiPath?: string;
  /** The container token (contents of the file named by env `TOKEN_FILE`). */
  readonly token: string;
  /**
   * How long one HTTP request may take.
   * @default 30000
   */
  readonly timeoutMs?: number;
  /** How failures are reported; default: the error classes of this module. */
  readonly errors?: AlgorithmClientErrors;
}

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

/** Reads the container identity out of a token (claim `identity` if present, else `sub`), without verifying it. */
export function containerIdentity(
  token: string,
  errors: AlgorithmClientErrors = DEFAULT_ERRORS,
): ContainerIdentity {
  let claims: Record<string, unknown>;
  try {
    const parts = token.trim().split('.');
    if (parts.length !== 3 || !parts[1]) throw new Error('not a JWT: expected three dot-separated parts');
    const parsed: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new Error('not a JWT: the payload is not a JSON object');
    claims = parsed as Record<string, unknown>;
  } catch (error) {
    throw errors.invalid(`The container token cannot be read: ${(error as Error).message}.`, error);
  }
  const raw = (
    typeof claims.identity === 'object' && claims.identity !== null ? claims.identity : claims.sub
  ) as Record<string, unknown> | undefined;
  if (typeof raw !== 'object' || raw === null)
    throw errors.invalid('The token is not a container token: its identity is not an object.');
  const int = (key: string): number => {
    const v = raw[key];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
    throw errors.invalid(`The container token has no integer "${key}" in its identity.`);
  };
  if (typeof raw.image !== 'string')
    throw errors.invalid('The container token has no "image" in its identity.');
  return {
    nodeId: int('node_id'),
    organizationId: int('organization_id'),
    collaborationId: int('collaboration_id'),
    taskId: int('task_id'),
    image: raw.image,
    database: typeof raw.database === 'string' ? raw.database : null,
  };
}

/**
 * The client's options from the container environment: `HOST`, `PORT`, `API_PATH` and the token in the file named
 * by `TOKEN_FILE`, as the node sets them (docs/container-environment.md#environment-variables).
 */
export function optionsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  errors: AlgorithmClientErrors = DEFAULT_ERRORS,
): AlgorithmClientOptions {
  const need = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === '')
      throw errors.invalid(
        `Environment variable ${name} is not set; is this running in an algorithm container?`,
      );
    return value;
  };
  const host = need('HOST');
  const portText = need('PORT');
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw errors.invalid(`Environment variable PORT must be a port number, got "${portText}".`);
  const tokenFile = need('TOKEN_FILE');
  let token: string;
  try {
    token = readFileSync(tokenFile, 'utf8');
  } catch (error) {
    throw errors.invalid(
      `Cannot read the token file ${tokenFile} (TOKEN_FILE): ${(error as Error).message}`,
      error,
    );
  }
  return { host, port, apiPath: env.API_PATH ?? '', token, errors };
}

/** Output bytes: `json.` payloads become their value; anything else (a pickle, other formats) stays bytes. */
function decodeOutput(bytes: Buffer): unknown {
  let format: string;
  let body: Uint8Array;
  try {
    ({ format, body } = detectFormat(bytes));
  } catch {
    return bytes;
  }
  return format === 'json' ? (JSON.parse(Buffer.from(body).toString('utf8')) as unknown) : bytes;
}

/** Why a `fetch` failed, in a few words (`ECONNREFUSED`, `no answer within 30000 ms`, …). */
function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `no answer within ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** Header of the proxy's long-poll answers (a Federa extension); a proxy that does not send it is polled. */
const LONG_POLL_HEADER = 'x-federa-wait';
/** Seconds of one long-poll; the proxy answers sooner when the task completes. */
const LONG_POLL_SECONDS = 30;

const listBody = <T>(body: unknown): T[] =>
  (Array.isArray(body) ? body : ((body as { data?: unknown[] } | null)?.data ?? [])) as T[];

const idOf = (ref: number | { id: number }): number => (typeof ref === 'number' ? ref : ref.id);

/** The algorithm container's client of the node proxy. */
export class AlgorithmClient {
  /** The container's identity, read from its token. */
  readonly identity: ContainerIdentity;
  readonly #host: string;
  readonly #port: number;
  readonly #base: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #errors: AlgorithmClientErrors;
  /** The proxy holds long-polls of tasks (until one answer without the header says otherwise). */
  #longPoll = true;

  /** @throws when the token is not a container token. */
  constructor(options: AlgorithmClientOptions) {
    this.#errors = options.errors ?? DEFAULT_ERRORS;
    this.#token = options.token.trim();
    this.identity = containerIdentity(this.#token, this.#errors);
    this.#host = options.host.replace(/\/+$/, '');
    this.#port = Number(options.port);
    const apiPath = (options.apiPath ?? '').replace(/\/+$/, '');
    this.#base = `${this.#host}:${this.#port}${apiPath && !apiPath.startsWith('/') ? '/' : ''}${apiPath}`;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** From the container environment (HOST, PORT, API_PATH, TOKEN_FILE). */
  static fromEnv(env: Readonly<Record<string, string | undefined>> = process.env): AlgorithmClient {
    return new AlgorithmClient(optionsFromEnv(env));
  }

  /** Any request to the proxy; resolves with the parsed JSON answer (`null` when empty). */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.#exchange<T>(method, path, body, this.#timeoutMs)).body;
  }

  /** One request: the parsed answer and the proxy's long-poll header; refusals and failures throw. */
  async #exchange<T>(
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
  ): Promise<{ body: T; waitOutcome: string | null }> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.#base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${this.#token}`,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (error) {
      throw this.#errors.unreachable(this.#host, this.#port, networkReason(error, timeoutMs), error);
    }
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    if (res.status > 210) {
      const b = parsed as { msg?: unknown; message?: unknown } | null;
      const serverMessage =
        typeof b?.msg === 'string'
          ? b.msg
          : typeof b?.message === 'string'
            ? b.message
            : text.trim().slice(0, 200) || `HTTP ${res.status}`;
      throw this.#errors.refused({ status: res.status, method, path, serverMessage, body: parsed });
    }
    if (parsed === null && text.trim() !== '')
      throw this.#errors.invalid(`${method} ${path}: the proxy's answer is not JSON: ${text.slice(0, 200)}`);
    return { body: parsed as T, waitOutcome: res.headers.get(LONG_POLL_HEADER) };
  }

  /** The organizations of this container's collaboration. */
  async organizations<T extends { id: number } = { id: number; name?: string }>(): Promise<T[]> {
    return listBody<T>(
      await this.request('GET', `/collaboration/${this.identity.collaborationId}/organization`),
    );
  }

  /** Ids of the organizations of this container's collaboration. */
  async organizationIds(): Promise<number[]> {
    return (await this.organizations()).map((o) => o.id);
  }

  /**
   * Creates a sub-task of this container's task for `organizations`, with this task's image, collaboration and
   * database. Each organization's input is base64 of the serialized payload; the proxy encrypts it.
   */
  async createSubTask<T extends { id: number } = { id: number }>(spec: SubTaskSpec): Promise<T> {
    if (spec.organizations.length === 0) throw new RangeError('a sub-task needs at least one organization');
    let bytes: Buffer;
    if (spec.input instanceof Uint8Array) bytes = Buffer.from(spec.input);
    else {
      if (JSON.stringify(spec.input) === undefined)
        throw new TypeError(`a ${typeof spec.input} cannot be sent as a JSON payload`);
      bytes = encodeJsonPayload(spec.input);
    }
    const input = bytes.toString('base64');
    return this.request<T>('POST', '/task', {
      name: spec.name ?? 'subtask',
      description: spec.description ?? `Sub-task created by the algorithm on node ${this.identity.nodeId}`,
      image: this.identity.image,
      collaboration_id: this.identity.collaborationId,
      database: this.identity.database,
      organizations: spec.organizations.map((id) => ({ id, input })),
    });
  }

  /** Creates a sub-task that calls `input.method` (not as master) at each organization. */
  async createTask(options: CreateTaskOptions): Promise<{ id: number }> {
    return this.createSubTask({
      organizations: options.organizations,
      input: {
        method: options.input.method,
        args: options.input.args ?? [],
        kwargs: options.input.kwargs ?? {},
        master: false,
      },
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
    });
  }

  /** Reads a task (`GET /task/{id}`), e.g. to look at `complete`. */
  async getTask<T extends { complete?: boolean } = { id: number; complete?: boolean }>(
    taskId: number,
  ): Promise<T> {
    return this.request<T>('GET', `/task/${taskId}`);
  }

  /** The results of a task with their outputs decoded (does not wait; see waitForResults). */
  async getResults(taskId: number): Promise<SubTaskResult[]> {
    const items = listBody<{
      id: number;
      organization: number | { id: number };
      result: string | null;
      status?: string | null;
      log?: string | null;
    }>(await this.request('GET', `/task/${taskId}/result`));
    return items.map((item) => ({
      id: item.id,
      organizationId: idOf(item.organization),
      output: item.result ? decodeOutput(Buffer.from(item.result, 'base64')) : null,
      status: item.status ?? null,
      log: item.log ?? null,
    }));
  }

  /**
   * Waits until the task is complete. A Federa node's proxy holds `GET /task/{id}?wait=<s>` until the task
   * completes (docs/container-environment.md#waiting-for-a-sub-task), so the container does not poll; a proxy
   * without it (vantage6 3.x), or one holding too many waits, is polled instead: after 200 ms, then doubling up to
   * `intervalMs`.
   */
  async waitForCompletion(taskId: number, options: SubTaskWaitOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 600_000;
    const maxInterval = options.intervalMs ?? 1_000;
    const deadline = Date.now() + timeoutMs;
    let interval = Math.min(maxInterval, 200);
    for (;;) {
      options.signal?.throwIfAborted();
      let answer: 'complete' | 'pending' | 'unavailable' = 'unavailable';
      if (this.#longPoll) {
        const seconds = Math.min(LONG_POLL_SECONDS, Math.floor((deadline - Date.now()) / 1000));
        answer = await this.#longPollTask(taskId, Math.max(0, seconds));
        if (answer === 'pending' && seconds > 0 && deadline - Date.now() > 0) continue;
      }
      if (answer === 'complete') return;
      if (answer === 'unavailable' && (await this.getTask(taskId)).complete === true) return;
      if (deadline - Date.now() <= 0) throw this.#errors.timeout(taskId, timeoutMs);
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(interval, Math.max(0, deadline - Date.now())));
        options.signal?.addEventListener('abort', done);
      });
      interval = Math.min(interval * 2, maxInterval);
    }
  }

  /**
   * One long-poll: `complete`, `pending` (the wait ended first), or `unavailable` when this proxy does not hold
   * waits (it is then polled from now on) or holds too many now (503: polled this once).
   */
  async #longPollTask(taskId: number, seconds: number): Promise<'complete' | 'pending' | 'unavailable'> {
    let answer: { body: { complete?: unknown } | null; waitOutcome: string | null };
    try {
      answer = await this.#exchange<{ complete?: unknown } | null>(
        'GET',
        `/task/${taskId}?wait=${seconds}`,
        undefined,
        this.#timeoutMs + seconds * 1000,
      );
    } catch (error) {
      if ((error as { status?: unknown }).status === 503) return 'unavailable';
      throw error;
    }
    if (answer.body?.complete === true) return 'complete';
    if (answer.waitOutcome === null) {
      this.#longPoll = false;
      return 'unavailable';
    }
    return 'pending';
  }

  /** waitForCompletion, then getResults. */
  async waitForResults(taskId: number, options: SubTaskWaitOptions = {}): Promise<SubTaskResult[]> {
    await this.waitForCompletion(taskId, options);
    return this.getResults(taskId);
  }

  /**
   * The decoded outputs of a (complete) task, one per organization, in the order the server lists them. A run that
   * did not succeed (a status other than `completed`, or no output and no status) throws with the tail of its log,
   * even when it left some output.
   */
  async results<T = unknown>(
    taskId: number,
  ): Promise<{ organization: number; status: string | null; value: T }[]> {
    return (await this.getResults(taskId)).map((r) => {
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

  /** createTask + waitForCompletion + results: the outputs of every organization. */
  async run<T = unknown>(options: CreateTaskOptions & SubTaskWaitOptions): Promise<T[]> {
    const task = await this.createTask(options);
    await this.waitForCompletion(task.id, options);
    return (await this.results<T>(task.id)).map((r) => r.value);
  }

  /**
   * VPN addresses of related runs (docs/vpn.md): those of this task and, as asked, of its sub-tasks or its parent;
   * `label` keeps only the ports with that label. Each address is where another algorithm listens, reached over
   * the VPN: `ip` is its node's VPN address, `port` the port forwarded to it.
   */
  async getAddresses(options: AddressQuery = {}): Promise<AlgorithmAddress[]> {
    const flag = (v: boolean | undefined): string => (v ? '1' : '0');
    const query = new URLSearchParams({
      include_children: flag(options.includeChildren),
      include_parent: flag(options.includeParent),
      only_children: flag(options.onlyChildren),
      only_parent: flag(options.onlyParent),
    });
    if (options.label !== undefined) query.set('label', options.label);
    const body = await this.request<{ addresses?: AlgorithmAddress[] }>(
      'GET',
      `/vpn/algorithm/addresses?${query.toString()}`,
    );
    return body?.addresses ?? [];
  }

  /** VPN addresses of the runs of this task's sub-tasks (optionally only the ports with `label`). */
  getChildAddresses(label?: string): Promise<AlgorithmAddress[]> {
    return this.getAddresses({ onlyChildren: true, ...(label !== undefined ? { label } : {}) });
  }

  /** The VPN address of the run of this task's parent, or null when it has none. */
  async getParentAddress(label?: string): Promise<AlgorithmAddress | null> {
    const found = await this.getAddresses({ onlyParent: true, ...(label !== undefined ? { label } : {}) });
    return found[0] ?? null;
  }
}

/** Which runs' VPN addresses {@link AlgorithmClient.getAddresses} returns. */
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
