/**
 * The client an algorithm container uses to talk to its node's proxy (algorithm-container.md §7–8): create
 * sub-tasks, wait for them and read their results, list the collaboration's organizations.
 *
 * The proxy does the encryption: inputs go to it as base64 of the plaintext bytes and results come back as
 * base64 of the plaintext bytes, so this client never holds a key.
 */
import { readFile } from 'node:fs/promises';

import { decodeBase64Lenient, encodeBase64 } from '@federa/common';

import { FederaClientError } from './errors.js';
import { HttpTransport } from './http.js';
import { decodeJwt } from './jwt.js';
import { deserializePayload, serializePayload, type Payload } from './payload.js';
import type { Organization, Result, Task } from './types.js';
import { waitUntil } from './wait.js';

/** Who the container is: the identity inside its token (auth-rbac.md §2.2). */
export interface ContainerIdentity {
  /** The node that runs the container. */
  nodeId: number;
  /** That node's organization (sub-task results are encrypted for it). */
  organizationId: number;
  /** The collaboration of the task. */
  collaborationId: number;
  /** The task the container runs for; sub-tasks get it as parent. */
  taskId: number;
  /** The task's image; sub-tasks use it too. */
  image: string;
  /** The task's database label (`null` from servers that do not put it in the token). */
  database: string | null;
}

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

/** One organization's output of a sub-task. */
export interface SubTaskResult {
  /** The result id. */
  id: number;
  /** The organization that produced it. */
  organizationId: number;
  /** The output: the value of a `json.` output, otherwise the raw bytes (`Buffer`); `null` when empty. */
  output: unknown;
  /** The run's status (`completed`, `crashed`, …) when the server reports one. */
  status: string | null;
  /** The algorithm's log. */
  log: string | null;
}

/** Options of {@link AlgorithmClient.waitForResults}. */
export interface SubTaskWaitOptions {
  /**
   * How often to poll `GET /task/{id}`.
   * @default 1000
   */
  intervalMs?: number;
  /**
   * Give up after this long with a WaitTimeoutError; `Infinity` waits as long as it takes.
   * @default 600000 (10 minutes)
   */
  timeoutMs?: number;
  /** Aborts the wait. */
  signal?: AbortSignal;
}

/** Reads the container identity out of a token (claim `identity` if present, else `sub`). */
export function containerIdentity(token: string): ContainerIdentity {
  let claims;
  try {
    claims = decodeJwt(token);
  } catch (error) {
    throw new FederaClientError(`The container token cannot be read: ${(error as Error).message}.`, {
      cause: error,
    });
  }
  const raw = (
    typeof claims.identity === 'object' && claims.identity !== null ? claims.identity : claims.sub
  ) as Record<string, unknown> | undefined;
  if (typeof raw !== 'object' || raw === null) {
    throw new FederaClientError('The token is not a container token: its identity is not an object.');
  }
  const int = (key: string): number => {
    const v = raw[key];
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
    throw new FederaClientError(`The container token has no integer "${key}" in its identity.`);
  };
  if (typeof raw.image !== 'string')
    throw new FederaClientError('The container token has no "image" in its identity.');
  return {
    nodeId: int('node_id'),
    organizationId: int('organization_id'),
    collaborationId: int('collaboration_id'),
    taskId: int('task_id'),
    image: raw.image,
    database: typeof raw.database === 'string' ? raw.database : null,
  };
}

/** The algorithm container's client of the node proxy. */
export class AlgorithmClient {
  /** The container's identity, read from its token. */
  readonly identity: ContainerIdentity;
  readonly #transport: HttpTransport;
  readonly #token: string;

  /** @throws FederaClientError when the token is not a container token. */
  constructor(options: AlgorithmClientOptions) {
    this.#token = options.token.trim();
    this.identity = containerIdentity(this.#token);
    this.#transport = new HttpTransport(
      { host: options.host, port: options.port, apiPath: options.apiPath ?? '' },
      options.timeoutMs ?? 30_000,
    );
  }

  /**
   * Builds the client from the container's environment: `HOST`, `PORT`, `API_PATH` and the token file named
   * by `TOKEN_FILE`, as the node sets them (algorithm-container.md §5).
   * @throws FederaClientError naming the missing or invalid variable.
   */
  static async fromEnv(env: Record<string, string | undefined> = process.env): Promise<AlgorithmClient> {
    const need = (name: string): string => {
      const value = env[name];
      if (value === undefined || value === '') {
        throw new FederaClientError(
          `Environment variable ${name} is not set; is this running in an algorithm container?`,
        );
      }
      return value;
    };
    const host = need('HOST');
    const portText = need('PORT');
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new FederaClientError(`Environment variable PORT must be a port number, got "${portText}".`);
    }
    const tokenFile = need('TOKEN_FILE');
    let token: string;
    try {
      token = await readFile(tokenFile, 'utf8');
    } catch (error) {
      throw new FederaClientError(
        `Cannot read the token file ${tokenFile} (TOKEN_FILE): ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    return new AlgorithmClient({ host, port, apiPath: env.API_PATH ?? '', token });
  }

  /**
   * Creates a sub-task of this container's task for `organizations`, with this task's image, collaboration
   * and database. The proxy encrypts the input for each organization.
   * @throws FederaApiError when the proxy or server refuses it.
   */
  async createSubTask(spec: SubTaskSpec): Promise<Task> {
    if (spec.organizations.length === 0) throw new RangeError('a sub-task needs at least one organization');
    const input = encodeBase64(serializePayload(spec.input));
    const answer = await this.#transport.request({
      method: 'POST',
      path: '/task',
      token: this.#token,
      body: {
        name: spec.name ?? 'subtask',
        description: spec.description ?? `Sub-task created by the algorithm on node ${this.identity.nodeId}`,
        image: this.identity.image,
        collaboration_id: this.identity.collaborationId,
        database: this.identity.database,
        organizations: spec.organizations.map((id) => ({ id, input })),
      },
    });
    return answer.body as Task;
  }

  /** Reads a task (`GET /task/{id}`), e.g. to look at `complete`. */
  async getTask(taskId: number): Promise<Task> {
    return (await this.#transport.request({ method: 'GET', path: `/task/${taskId}`, token: this.#token }))
      .body as Task;
  }

  /** Reads the results of a task with their outputs decoded (does not wait; see {@link waitForResults}). */
  async getResults(taskId: number): Promise<SubTaskResult[]> {
    const answer = await this.#transport.request({
      method: 'GET',
      path: `/task/${taskId}/result`,
      token: this.#token,
    });
    const body = answer.body as Result[] | { data?: Result[] } | null;
    const items = Array.isArray(body) ? body : (body?.data ?? []);
    return items.map((item) => ({
      id: item.id,
      organizationId: typeof item.organization === 'number' ? item.organization : item.organization.id,
      output:
        item.result === null || item.result === ''
          ? null
          : deserializePayload(decodeBase64Lenient(item.result, `the output of result ${item.id}`)),
      status: item.status ?? null,
      log: item.log ?? null,
    }));
  }

  /**
   * Polls `GET /task/{id}` until the task is complete, then returns its results with outputs decoded.
   * @throws WaitTimeoutError when it does not complete within `options.timeoutMs`.
   */
  async waitForResults(taskId: number, options: SubTaskWaitOptions = {}): Promise<SubTaskResult[]> {
    await waitUntil(taskId, async () => (await this.getTask(taskId)).complete === true, null, options);
    return this.getResults(taskId);
  }

  /** Lists the organizations of this container's collaboration. */
  async organizations(): Promise<Organization[]> {
    const answer = await this.#transport.request({
      method: 'GET',
      path: `/collaboration/${this.identity.collaborationId}/organization`,
      token: this.#token,
    });
    const body = answer.body as Organization[] | { data?: Organization[] } | null;
    return Array.isArray(body) ? body : (body?.data ?? []);
  }
}
