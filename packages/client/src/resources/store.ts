/** `client.store`: the algorithm store inside the server (docs/store.md). */
import { FederaClientError } from '../errors.js';
import type { Filters } from './base.js';
import { ResourceGroup, type ClientContext } from './base.js';
import type { CreatedTask } from '../types.js';
import type { TaskResource } from './task.js';

export interface StoreArgument {
  name: string;
  display_name?: string;
  description?: string;
  type: string;
  allowed_values?: (string | number)[];
  has_default_value?: boolean;
  default_value?: string;
  /** Asked only when the argument `conditional_on` compares to `conditional_value` by `conditional_operator`. */
  conditional_on?: string;
  conditional_operator?: '==' | '!=' | '>' | '<' | '>=' | '<=';
  conditional_value?: string;
  /** Read by a user interface only, never sent to the algorithm. */
  is_frontend_only?: boolean;
}

export interface StoreFunction {
  id: number;
  name: string;
  display_name: string | null;
  description: string | null;
  type: 'central' | 'federated';
  standalone: boolean;
  arguments: StoreArgument[];
  databases: { name: string; description?: string }[];
  ui_visualizations: { name: string; type: string; description?: string; schema?: Record<string, unknown> }[];
}

export interface StoreAlgorithm {
  id: number;
  name: string;
  display_name: string | null;
  description: string | null;
  image: string;
  digest: string | null;
  status: string;
  partitioning: string;
  vantage6_version: string;
  code_url: string;
  documentation_url: string | null;
  functions: StoreFunction[];
  submitted_at: string | null;
  approved_at: string | null;
  invalidated_at: string | null;
  replaced_by_id: number | null;
  developer_id?: number;
  submission_comments?: string | null;
}

export interface StoreFilters {
  /** Words that must each appear in the name, display name or description. */
  search?: string;
  name?: string;
  /** The image without its digest, exactly: every version of one algorithm. */
  image?: string;
  partitioning?: 'horizontal' | 'vertical';
  /** One status, or `all` (reviewers); approved ones by default. */
  status?: string;
  page?: number;
  perPage?: number;
}

export interface StorePerson {
  id: number;
  username?: string;
  server_url?: string;
  organization_id?: number | null;
}

export interface StoreReview {
  id: number;
  algorithm_id: number;
  reviewer: StorePerson;
  requested_by: StorePerson;
  requested_at: string | null;
  submitted_at: string | null;
  /** `under review`, `approved`, `rejected` or `dropped`. */
  status: string;
  comment: string | null;
}

export interface ReviewFilters {
  algorithmId?: number;
  /** A store user id (`me().id` for one's own). */
  reviewerId?: number;
  status?: string;
}

export interface StoreUser {
  id: number;
  username: string;
  server_url: string;
  organization_id: number | null;
  email: string | null;
  /** Store roles, e.g. `reviewer`, `developer`, `store manager`. */
  roles: string[];
}

/** A task from a store algorithm: its function and keyword arguments. */
export interface StoreTask {
  algorithmId: number;
  function: string;
  arguments: Record<string, unknown>;
  collaborationId: number;
  organizations: number[];
  name?: string;
  description?: string;
  database?: string;
}

export class StoreResource extends ResourceGroup {
  readonly #tasks: TaskResource;
  readonly #path: string;

  /** @internal built by UserClient */
  constructor(ctx: ClientContext, tasks: TaskResource, storePath = '/store/api') {
    super(ctx);
    this.#tasks = tasks;
    this.#path = storePath.replace(/\/+$/, '');
  }

  async #call<T>(
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    body?: unknown,
    query?: Filters,
  ): Promise<T> {
    const answer = await this.ctx.session.request({
      method,
      path: `${this.#path}${path}`,
      fromOrigin: true,
      ...(body !== undefined ? { body } : {}),
      ...(query ? { query } : {}),
    });
    return answer.body as T;
  }

  /** One page of algorithms (approved ones unless `status` says otherwise), newest first. */
  async list(filters: StoreFilters = {}): Promise<StoreAlgorithm[]> {
    const { perPage, ...rest } = filters;
    const query: Filters = { ...rest, ...(perPage !== undefined ? { per_page: perPage } : {}) };
    return (await this.#call<{ data: StoreAlgorithm[] }>('GET', '/algorithm', undefined, query)).data;
  }

  get(id: number): Promise<StoreAlgorithm> {
    return this.#call('GET', `/algorithm/${id}`);
  }

  /** Submits an author's description (the JSON kept for vantage6's store, loaded as it is). */
  submit(description: Record<string, unknown>): Promise<StoreAlgorithm> {
    return this.#call('POST', '/algorithm', description);
  }

  /** Reviews, e.g. the open ones of a reviewer (`{reviewerId, status: 'under review'}`), as the caller may see them. */
  async reviews(filters: ReviewFilters = {}): Promise<StoreReview[]> {
    const query: Filters = {
      ...(filters.algorithmId !== undefined ? { algorithm_id: filters.algorithmId } : {}),
      ...(filters.reviewerId !== undefined ? { reviewer_id: filters.reviewerId } : {}),
      ...(filters.status !== undefined ? { status: filters.status } : {}),
    };
    return (await this.#call<{ data: StoreReview[] }>('GET', '/review', undefined, query)).data;
  }

  /** Who the store takes the caller for (a store user), with their store roles. */
  me(): Promise<StoreUser> {
    return this.#call('GET', '/user/me');
  }

  /** Assigns a reviewer (store managers). */
  assignReviewer(algorithmId: number, reviewerId: number): Promise<{ id: number }> {
    return this.#call('POST', '/review', { algorithm_id: algorithmId, reviewer_id: reviewerId });
  }

  approve(reviewId: number, comment?: string): Promise<{ algorithm_status: string; still_needed?: string }> {
    return this.#call('POST', `/review/${reviewId}/approve`, comment !== undefined ? { comment } : {});
  }

  reject(reviewId: number, comment: string): Promise<{ algorithm_status: string }> {
    return this.#call('POST', `/review/${reviewId}/reject`, { comment });
  }

  /**
   * Creates a task from an approved algorithm, one of its functions and its keyword arguments. The task runs the
   * approved digest; the server checks the arguments against the function (a 400 names a wrong one).
   */
  async createTask(task: StoreTask): Promise<CreatedTask> {
    const algorithm = await this.get(task.algorithmId);
    if (algorithm.status !== 'approved' || !algorithm.digest)
      throw new FederaClientError(
        `Store algorithm ${algorithm.id} is ${algorithm.status}, not approved: it cannot run.`,
      );
    const fn = algorithm.functions.find((f) => f.name === task.function);
    if (!fn)
      throw new FederaClientError(
        `Store algorithm ${algorithm.id} has no function '${task.function}'; its functions: ${algorithm.functions.map((f) => f.name).join(', ')}.`,
      );
    return this.#tasks.create({
      collaborationId: task.collaborationId,
      organizations: task.organizations,
      name: task.name ?? fn.display_name ?? fn.name,
      description: task.description ?? '',
      image: `${algorithm.image}@${algorithm.digest}`,
      // A central function runs as master (its wrapper calls the central entry point only then); in an encrypted
      // collaboration the server cannot set the flag, so it is set here.
      input: { method: fn.name, master: fn.type === 'central', args: [], kwargs: task.arguments },
      ...(task.database !== undefined ? { database: task.database } : {}),
      storeAlgorithmId: algorithm.id,
    });
  }

  /** The users the store knows, with their roles (store managers). */
  async users(): Promise<StoreUser[]> {
    return (await this.#call<{ data: StoreUser[] }>('GET', '/user')).data;
  }
}
