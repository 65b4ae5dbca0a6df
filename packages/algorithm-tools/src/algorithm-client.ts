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
 * algorithm images. Its parts: algorithm-client-errors.ts, container-environment.ts, proxy-connection.ts,
 * sub-task-request.ts, sub-task-wait.ts, sub-task-results.ts, sub-task-types.ts.
 */
import { DEFAULT_ERRORS } from './algorithm-client-errors.js';
import {
  containerIdentity,
  optionsFromEnv,
  type AlgorithmClientOptions,
  type ContainerIdentity,
} from './container-environment.js';
import { ProxyConnection } from './proxy-connection.js';
import { methodCallSpec, subTaskRequest } from './sub-task-request.js';
import { decodeResults, listBody, successfulOutputs } from './sub-task-results.js';
import type {
  AddressQuery,
  AlgorithmAddress,
  CreateTaskOptions,
  SubTaskResult,
  SubTaskSpec,
  SubTaskWaitOptions,
} from './sub-task-types.js';
import { SubTaskWaiter } from './sub-task-wait.js';

/** The algorithm container's client of the node proxy. */
export class AlgorithmClient {
  /** The container's identity, read from its token. */
  readonly identity: ContainerIdentity;
  readonly #connection: ProxyConnection;
  readonly #waiter: SubTaskWaiter;

  /** @throws when the token is not a container token. */
  constructor(options: AlgorithmClientOptions) {
    const errors = options.errors ?? DEFAULT_ERRORS;
    const token = options.token.trim();
    this.identity = containerIdentity(token, errors);
    this.#connection = new ProxyConnection({
      host: options.host,
      port: Number(options.port),
      apiPath: options.apiPath ?? '',
      token,
      timeoutMs: options.timeoutMs ?? 30_000,
      retryForMs: options.retryForMs ?? 120_000,
      errors,
    });
    this.#waiter = new SubTaskWaiter(this.#connection, errors, (taskId) => this.getTask(taskId));
  }

  /** From the container environment (HOST, PORT, API_PATH, TOKEN_FILE). */
  static fromEnv(env: Readonly<Record<string, string | undefined>> = process.env): AlgorithmClient {
    return new AlgorithmClient(optionsFromEnv(env));
  }

  /** Any request to the proxy; resolves with the parsed JSON answer (`null` when empty). */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    return (await this.#connection.exchange<T>(method, path, body, this.#connection.timeoutMs)).body;
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
    return this.request<T>('POST', '/task', subTaskRequest(this.identity, spec));
  }

  /** Creates a sub-task that calls `input.method` (not as master) at each organization. */
  async createTask(options: CreateTaskOptions): Promise<{ id: number }> {
    return this.createSubTask(methodCallSpec(options));
  }

  /** Reads a task (`GET /task/{id}`), e.g. to look at `complete`. */
  async getTask<T extends { complete?: boolean } = { id: number; complete?: boolean }>(
    taskId: number,
  ): Promise<T> {
    return this.request<T>('GET', `/task/${taskId}`);
  }

  /** The results of a task with their outputs decoded (does not wait; see waitForResults). */
  async getResults(taskId: number): Promise<SubTaskResult[]> {
    return decodeResults(await this.request('GET', `/task/${taskId}/result`));
  }

  /**
   * Waits until the task is complete. A Federa node's proxy holds `GET /task/{id}?wait=<s>` until the task
   * completes (docs/container-environment.md#waiting-for-a-sub-task), so the container does not poll; a proxy
   * without it (vantage6 3.x), or one holding too many waits, is polled instead: after 200 ms, then doubling up to
   * `intervalMs`.
   */
  async waitForCompletion(taskId: number, options: SubTaskWaitOptions = {}): Promise<void> {
    return this.#waiter.wait(taskId, options);
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
    return successfulOutputs<T>(taskId, await this.getResults(taskId));
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
