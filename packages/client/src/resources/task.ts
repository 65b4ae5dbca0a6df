import { newTraceparent } from '../trace-context.js';
import { DummyCryptor, EncryptionError, encryptForOrganizations, type NewTaskBody } from '@federa/common';

import { FederaClientError } from '../errors.js';
import { serializePayload, type Payload } from '../payload.js';
import type { Collaboration, CreatedTask, DecryptedResult, Organization, Page, Task } from '../types.js';
import { ResourceGroup, type ListOptions } from './base.js';
import type { ResultResource } from './result.js';

/** Filters of `GET /task`. */
export interface TaskFilters {
  /** The creating organization. */
  initiatorId?: number;
  /** The creating user. */
  initUserId?: number;
  collaborationId?: number;
  parentId?: number;
  runId?: number;
  /** SQL LIKE (`%` wildcards), as are `image`, `description` and `database`. */
  name?: string;
  image?: string;
  description?: string;
  database?: string;
  /** `pending`, `initializing`, `active`, `completed`, `failed`, … */
  status?: string;
  /** The task that owns this result. */
  resultId?: number;
}

/** A new task. */
export interface NewTask {
  collaborationId: number;
  /** The organizations whose nodes run it; each gets the input encrypted for it. */
  organizations: number[];
  /** @default "" */
  name?: string;
  /** The algorithm's container image. */
  image: string;
  /** @default "" */
  description?: string;
  /**
   * The input: raw bytes, sent as they are, or any JSON value, sent as `json.` + JSON (e.g.
   * `{method: 'average', args: [], kwargs: {column: 'age'}, output_format: 'json'}`).
   */
  input: Payload;
  /**
   * Label of the node database to use.
   * @default "default"
   */
  database?: string;
  /**
   * The databases the algorithm reads, in its order, by node label (vantage6 4.x); the first is also sent as
   * `database`. Left out: the one `database`.
   */
  databases?: { label: string }[];
  /**
   * Federa: when one run of the task fails, cancel its runs still pending (docs/run-statuses.md).
   * @default false
   */
  cancelOnFailure?: boolean;
  /** The store algorithm the image is (docs/store.md): the server checks the input against its function. */
  storeAlgorithmId?: number;
  /** The linked store of `storeAlgorithmId` (`GET /algorithmstore`); left out: the server's own. */
  algorithmStoreId?: number;
}

/** `client.task`: tasks. Creating one encrypts its input for every receiving organization. */
export class TaskResource extends ResourceGroup {
  readonly #results: ResultResource;

  /** @internal built by UserClient */
  constructor(ctx: ConstructorParameters<typeof ResourceGroup>[0], results: ResultResource) {
    super(ctx);
    this.#results = results;
  }

  /** Lists tasks the caller may see (newest first), reading every page unless `options.page` is given. */
  list(filters?: TaskFilters, options?: ListOptions): Promise<Task[]> {
    return this.listAt('/task', filters, options);
  }

  /** Reads one page of tasks with the total count. */
  listPage(filters?: TaskFilters, options?: { page?: number; perPage?: number }): Promise<Page<Task>> {
    return this.pageAt('/task', filters, options);
  }

  /** Reads one task. @throws NotFoundError when it does not exist. */
  get(id: number): Promise<Task> {
    return this.getJson(`/task/${id}`, undefined, this.ctx.traces.of(id));
  }

  /**
   * Creates a task. The input is serialized (bytes as they are, other values as `json.` + JSON); in an
   * encrypted collaboration it is encrypted for each organization with its public key, otherwise
   * base64-encoded. The answer's `warning` (e.g. receiving nodes that are offline; the task still queues) is
   * passed to the client's `warn` option (console.warn by default) and kept on the returned task.
   * @throws EncryptionError when an organization has no usable public key; FederaClientError when the
   *   collaboration is encrypted and no private key was given to `setupEncryption`.
   */
  async create(task: NewTask): Promise<CreatedTask> {
    if (task.organizations.length === 0) throw new RangeError('a task needs at least one organization');
    // One trace for the task: these reads, the post, and every later read of the task (trace-context.ts).
    const traceparent = newTraceparent();
    const collaboration = await this.getJson<Collaboration>(
      `/collaboration/${task.collaborationId}`,
      undefined,
      traceparent,
    );
    // Said before anything else (an outsider's missing key would otherwise be the first complaint).
    const members = new Set((collaboration.organizations ?? []).map((o) => o.id));
    const outsiders = task.organizations.filter((id) => !members.has(id));
    if (outsiders.length > 0) {
      throw new FederaClientError(
        `Organization(s) ${outsiders.join(', ')} are not in the collaboration ${collaboration.id} ("${collaboration.name}"); ` +
          `its organizations are ${[...members].join(', ') || 'none'}.`,
      );
    }
    const cryptor = collaboration.encrypted ? this.ctx.cryptor() : null;
    if (collaboration.encrypted && cryptor === null) {
      throw new FederaClientError(
        `Collaboration ${collaboration.id} ("${collaboration.name}") is encrypted: call ` +
          "setupEncryption(privateKeyPath) with your organization's private key before creating tasks in it.",
      );
    }
    const bytes = serializePayload(task.input);
    let organizations: { id: number; input: string }[];
    try {
      organizations = await encryptForOrganizations(
        cryptor ?? new DummyCryptor(),
        task.organizations.map((id) => ({ id, input: bytes })),
        async (id) => {
          const organization = await this.getJson<Organization>(
            `/organization/${id}`,
            undefined,
            traceparent,
          );
          return { publicKey: organization.public_key, name: organization.name };
        },
      );
    } catch (error) {
      if (!(error instanceof EncryptionError)) throw error;
      throw new EncryptionError(
        error.reason,
        `C${error.message.slice(1)}. ` +
          'Its node uploads the public key when it starts; start the node or upload the key, then retry.',
        { cause: error },
      );
    }
    this.ctx.log(`Creating task "${task.name ?? ''}" for organizations ${task.organizations.join(', ')}.`);
    const body: NewTaskBody = {
      collaboration_id: task.collaborationId,
      organizations,
      name: task.name ?? '',
      description: task.description ?? '',
      image: task.image,
      database: task.databases?.[0]?.label ?? task.database ?? 'default',
      ...(task.databases && task.databases.length > 0 ? { databases: task.databases } : {}),
      ...(task.cancelOnFailure ? { cancel_on_failure: true } : {}),
      ...(task.storeAlgorithmId !== undefined ? { store_algorithm_id: task.storeAlgorithmId } : {}),
      ...(task.algorithmStoreId !== undefined ? { algorithm_store_id: task.algorithmStoreId } : {}),
    };
    const created = await this.send<CreatedTask>('POST', '/task', body, traceparent);
    this.ctx.traces.remember(created.id, traceparent);
    // E.g. receiving nodes that are offline: the task queues, and the researcher should know why nothing happens.
    if (typeof created.warning === 'string' && created.warning !== '') {
      this.ctx.log(`Task ${created.id}: ${created.warning}`);
      this.ctx.warn(created.warning);
    }
    return created;
  }

  /** Deletes a task and its results (an unfinished task is killed first). */
  async delete(id: number): Promise<void> {
    await this.send('DELETE', `/task/${id}`);
  }

  /**
   * Kills the task and its sub-tasks at every depth (`POST /kill/task`): their open runs end `killed by user` and
   * the nodes stop them. Whoever may post a task may kill it (a Researcher: their organization's tasks).
   */
  async kill(id: number): Promise<void> {
    await this.send('POST', '/kill/task', { id });
  }

  /** Reads the task's results with their outputs decrypted (same as `client.result.fromTask`). */
  results(id: number): Promise<DecryptedResult[]> {
    return this.#results.fromTask(id);
  }
}
