/**
 * The client a master algorithm uses to create sub-tasks and collect their results, through the node's proxy
 * (`HOST`, `PORT`, `API_PATH`, the token in TOKEN_FILE). Input is sent as base64 of `json.` + JSON; the proxy
 * encrypts it per organization and decrypts the results back to base64 of the plaintext.
 */
import { readFileSync } from 'node:fs';

import { decodeJsonPayload, encodeJsonPayload } from './payload.js';

export interface TokenIdentity {
  readonly node_id: number;
  readonly organization_id: number;
  readonly collaboration_id: number;
  readonly task_id: number;
  readonly image: string;
  readonly database: string;
}

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

export interface WaitOptions {
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
}

export class AlgorithmClient {
  readonly #base: string;
  readonly #token: string;
  readonly identity: TokenIdentity;

  constructor(options: { host: string; port: string | number; apiPath?: string; token: string }) {
    this.#base = `${options.host.replace(/\/$/, '')}:${options.port}${options.apiPath ?? ''}`;
    this.#token = options.token;
    this.identity = readIdentity(options.token);
  }

  /** From the container environment (HOST, PORT, API_PATH, TOKEN_FILE). */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): AlgorithmClient {
    const need = (k: string): string => {
      const v = env[k];
      if (v === undefined)
        throw new Error(`${k} is not set: is this running inside a node's algorithm container?`);
      return v;
    };
    return new AlgorithmClient({
      host: need('HOST'),
      port: need('PORT'),
      apiPath: env.API_PATH ?? '',
      token: readFileSync(need('TOKEN_FILE'), 'ascii').trim(),
    });
  }

  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.#base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.#token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (res.status > 210) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return (text === '' ? null : JSON.parse(text)) as T;
  }

  /** Ids of the organizations of this collaboration. */
  async organizationIds(): Promise<number[]> {
    const body = await this.request<unknown>(
      'GET',
      `/collaboration/${this.identity.collaboration_id}/organization`,
    );
    const list = Array.isArray(body) ? body : ((body as { data?: unknown[] })?.data ?? []);
    return (list as { id: number }[]).map((o) => o.id);
  }

  /** Creates a sub-task of the running task (same image, collaboration and database). */
  async createTask(options: CreateTaskOptions): Promise<{ id: number }> {
    const input = encodeJsonPayload({
      method: options.input.method,
      args: options.input.args ?? [],
      kwargs: options.input.kwargs ?? {},
      master: false,
    }).toString('base64');
    return this.request<{ id: number }>('POST', '/task', {
      name: options.name ?? 'subtask',
      description:
        options.description ?? `sub-task created by the algorithm of node ${this.identity.node_id}`,
      image: this.identity.image,
      collaboration_id: this.identity.collaboration_id,
      database: this.identity.database,
      organizations: options.organizations.map((id) => ({ id, input })),
    });
  }

  /** Polls `GET /task/<id>` until `complete`. */
  async waitForCompletion(taskId: number, options: WaitOptions = {}): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? 30 * 60_000);
    let interval = Math.min(options.intervalMs ?? 1_000, 200);
    for (;;) {
      const task = await this.request<{ complete?: boolean }>('GET', `/task/${taskId}`);
      if (task.complete) return;
      if (Date.now() > deadline) throw new Error(`sub-task ${taskId} did not complete in time`);
      await new Promise((r) => setTimeout(r, interval));
      interval = Math.min(interval * 2, options.intervalMs ?? 1_000);
    }
  }

  /** The decoded results of a (complete) task, one per organization, in the order the server lists them. */
  async results<T = unknown>(
    taskId: number,
  ): Promise<{ organization: number; status: string | null; value: T }[]> {
    const body = await this.request<unknown>('GET', `/task/${taskId}/result`);
    const list = (Array.isArray(body) ? body : ((body as { data?: unknown[] })?.data ?? [])) as {
      organization: number | { id: number };
      status?: string | null;
      result: string | null;
      log?: string | null;
    }[];
    return list.map((r) => {
      const status = r.status ?? null;
      if (!r.result) {
        if (status && status !== 'completed')
          throw new Error(`a sub-task run failed (${status}): ${r.log ?? ''}`);
        return {
          organization: typeof r.organization === 'number' ? r.organization : r.organization.id,
          status,
          value: null as T,
        };
      }
      return {
        organization: typeof r.organization === 'number' ? r.organization : r.organization.id,
        status,
        value: decodeJsonPayload<T>(Buffer.from(r.result, 'base64')),
      };
    });
  }

  /** createTask + waitForCompletion + results. */
  async run<T = unknown>(options: CreateTaskOptions & WaitOptions): Promise<T[]> {
    const task = await this.createTask(options);
    await this.waitForCompletion(task.id, options);
    return (await this.results<T>(task.id)).map((r) => r.value);
  }
}

function readIdentity(token: string): TokenIdentity {
  const part = token.split('.')[1];
  if (!part) throw new Error('the container token is not a JWT');
  const claims = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as {
    sub?: unknown;
    identity?: unknown;
  };
  const id = (typeof claims.sub === 'object' && claims.sub !== null ? claims.sub : claims.identity) as
    TokenIdentity | undefined;
  if (!id || typeof id !== 'object')
    throw new Error('the container token carries no identity (sub/identity)');
  return id;
}
