/**
 * The client an algorithm container uses to talk to its node's proxy (docs/container-environment.md#the-proxy-and-the-container-token): create
 * sub-tasks, wait for them and read their results, list the collaboration's organizations.
 *
 * The implementation is the one of `@federa/algorithm-tools` (which algorithm images carry alone); this module
 * gives it the SDK's shape: the error classes of `errors.ts`, the resource types of `types.ts` and an async
 * `fromEnv`. The proxy does the encryption, so this client never holds a key.
 */
import {
  AlgorithmClient as ContainerClient,
  containerIdentity as readContainerIdentity,
  optionsFromEnv,
  type AlgorithmClientErrors,
  type ContainerIdentity,
  type SubTaskResult,
  type SubTaskWaitOptions,
} from '@federa/algorithm-tools';

import { ConnectionError, FederaClientError, WaitTimeoutError, apiErrorFor } from './errors.js';
import type { Payload } from './payload.js';
import type { Organization, Task } from './types.js';

export type { ContainerIdentity, SubTaskResult, SubTaskWaitOptions };

/** Where the proxy is and which token to use. */
export interface AlgorithmClientOptions {
  /** Scheme and host of the proxy, e.g. `http://proxyserver` (env `HOST`). */
  host: string;
  /** Port of the proxy, e.g. `8080` (env `PORT`). */
  port: number;
  /**
   * Path prefix of the proxy (env `API_PATH`).
   * @default ""
   */
  apiPath?: string;
  /** The container token (contents of the file named by env `TOKEN_FILE`). */
  token: string;
  /**
   * How long one HTTP request may take.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * How long a request is tried again while the node's proxy cannot be reached or answers 502/503/504 (the node is
   * restarting): with back-off, then the failure is thrown. 0: never again.
   * @default 120000
   */
  retryForMs?: number;
}

/** A new sub-task. */
export interface SubTaskSpec {
  /** The organizations that run it. */
  organizations: number[];
  /**
   * The input: bytes as they are, or a JSON value sent as `json.` + JSON (Python pickles are not
   * available in TypeScript), e.g. `{method: 'partial_average', kwargs: {column: 'age'}, output_format: 'json'}`.
   */
  input: Payload;
  /** @default "subtask" */
  name?: string;
  /** @default a text naming this node */
  description?: string;
}

/** The SDK's errors for the container client's failures. */
const SDK_ERRORS: AlgorithmClientErrors = {
  refused: ({ status, method, path, serverMessage, body }) => {
    const b = (body ?? {}) as { code?: unknown; message?: unknown };
    const fields =
      b.message !== null && typeof b.message === 'object'
        ? Object.fromEntries(Object.entries(b.message).map(([k, v]) => [k, String(v)]))
        : undefined;
    return apiErrorFor({
      status,
      code: typeof b.code === 'string' ? b.code : null,
      serverMessage,
      method,
      path,
      ...(fields ? { fields } : {}),
    });
  },
  unreachable: (host, port, reason, cause) => new ConnectionError(host, port, reason, { cause }),
  timeout: (taskId, timeoutMs) => new WaitTimeoutError(taskId, timeoutMs),
  invalid: (message, cause) => new FederaClientError(message, { cause }),
};

/**
 * Reads the container identity out of a token (claim `identity` if present, else `sub`).
 * @throws FederaClientError when it is not a container token.
 */
export function containerIdentity(token: string): ContainerIdentity {
  return readContainerIdentity(token, SDK_ERRORS);
}

/** The algorithm container's client of the node proxy. */
export class AlgorithmClient {
  /** The container's identity, read from its token. */
  readonly identity: ContainerIdentity;
  readonly #client: ContainerClient;

  /** @throws FederaClientError when the token is not a container token. */
  constructor(options: AlgorithmClientOptions) {
    this.#client = new ContainerClient({ ...options, errors: SDK_ERRORS });
    this.identity = this.#client.identity;
  }

  /**
   * Builds the client from the container's environment: `HOST`, `PORT`, `API_PATH` and the token file named
   * by `TOKEN_FILE`, as the node sets them (docs/container-environment.md#environment-variables).
   * @throws FederaClientError naming the missing or invalid variable.
   */
  static async fromEnv(env: Record<string, string | undefined> = process.env): Promise<AlgorithmClient> {
    const options = optionsFromEnv(env, SDK_ERRORS);
    return new AlgorithmClient({ ...options, port: Number(options.port) });
  }

  /**
   * Creates a sub-task of this container's task for `organizations`, with this task's image, collaboration
   * and database. The proxy encrypts the input for each organization.
   * @throws FederaApiError when the proxy or server refuses it.
   */
  async createSubTask(spec: SubTaskSpec): Promise<Task> {
    return this.#client.createSubTask<Task>(spec);
  }

  /** Reads a task (`GET /task/{id}`), e.g. to look at `complete`. */
  async getTask(taskId: number): Promise<Task> {
    return this.#client.getTask<Task>(taskId);
  }

  /** Reads the results of a task with their outputs decoded (does not wait; see {@link waitForResults}). */
  async getResults(taskId: number): Promise<SubTaskResult[]> {
    return this.#client.getResults(taskId);
  }

  /**
   * Polls `GET /task/{id}` until the task is complete, then returns its results with outputs decoded.
   * @throws WaitTimeoutError when it does not complete within `options.timeoutMs`.
   */
  async waitForResults(taskId: number, options: SubTaskWaitOptions = {}): Promise<SubTaskResult[]> {
    return this.#client.waitForResults(taskId, options);
  }

  /** Lists the organizations of this container's collaboration. */
  async organizations(): Promise<Organization[]> {
    return this.#client.organizations<Organization>();
  }
}
