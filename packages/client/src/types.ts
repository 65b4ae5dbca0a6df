/**
 * The resources as the API returns them (api.md §2). Field names are the wire's snake_case; a to-many
 * reference list is `null` when it is empty.
 */

/** A link to another resource (api.md §1.8). */
export interface Ref {
  id: number;
  /** Path including the API prefix, e.g. `/api/organization/3`. */
  link: string;
  methods: string[];
}

/** An organization (api.md §2.1). */
export interface Organization {
  id: number;
  name: string | null;
  domain: string | null;
  address1: string | null;
  address2: string | null;
  zipcode: string | null;
  country: string | null;
  /** Base64 of the PEM public key; `''` when the organization has none. */
  public_key: string;
  collaborations: Ref[] | null;
  nodes: Ref[] | null;
  users: Ref[] | null;
  results: Ref[] | null;
  roles: number[];
}

/** A collaboration (api.md §2.2). */
export interface Collaboration {
  id: number;
  name: string;
  encrypted: boolean;
  organizations: Ref[] | null;
  nodes: Ref[] | null;
  tasks: Ref[] | null;
}

/** A node (api.md §2.3). */
export interface Node {
  id: number;
  type: 'node';
  name: string | null;
  ip: string | null;
  status: 'online' | 'offline' | null;
  last_seen: string | null;
  organization: Ref;
  collaboration: Ref | null;
  config?: { key: string; value: string }[];
}

/** A node as `POST /node` returns it: the only time its API key is shown. */
export interface NewNode extends Node {
  api_key: string;
}

/** A user (api.md §2.4). */
export interface User {
  id: number;
  type: 'user';
  username: string;
  firstname: string | null;
  lastname: string | null;
  email: string | null;
  ip: string | null;
  status: string | null;
  last_seen: string | null;
  organization: Ref;
  roles: Ref[] | null;
  rules: Ref[] | null;
  created_tasks?: number[];
}

/** A role (api.md §2.5). */
export interface Role {
  id: number;
  name: string;
  description: string | null;
  organization: Ref | null;
  rules: Ref[] | null;
  users: Ref[] | null;
}

/** A rule (api.md §2.6). */
export interface Rule {
  id: number;
  /** The resource it governs (`user`, `task`, …). */
  name: string;
  operation: 'VIEW' | 'EDIT' | 'CREATE' | 'DELETE';
  scope: 'OWN' | 'ORGANIZATION' | 'COLLABORATION' | 'GLOBAL';
  description: string | null;
  users: Ref[] | null;
}

/** A task (api.md §2.7). */
export interface Task {
  id: number;
  /** Only in the answer to creating a task: e.g. which receiving nodes are offline (the task still queues). */
  warning?: string;
  name: string;
  description: string;
  image: string;
  database: string | null;
  run_id: number;
  /** Id of the organization that created it; results are encrypted for it. */
  initiator: number;
  init_user: number | null;
  collaboration: Ref;
  parent: Ref | null;
  children: Ref[] | null;
  results: Ref[] | null;
  complete: boolean;
  status?: string;
  finished_at?: string | null;
  created_at?: string;
}

/** A result: one organization's run of a task (api.md §2.8), with `result` still encrypted. */
export interface Result {
  id: number;
  /** The input for this organization, encrypted for it (or base64 in an unencrypted collaboration). */
  input: string | null;
  /** The output, encrypted for the task's initiator (or base64); `null` until the run finished. */
  result: string | null;
  log: string | null;
  assigned_at: string;
  started_at: string | null;
  finished_at: string | null;
  status: string | null;
  /** A reference, or the plain task id in the "task-result" form of `GET /task/{id}/result`. */
  task: Ref | number;
  /** A reference, or the plain organization id in the "task-result" form. */
  organization: Ref | number;
  node: { id?: number; name?: string | null; ip?: string | null; status?: string | null };
  ports: { id: number; port: number; label: string | null }[];
}

/**
 * A result whose output has been decrypted: `result` holds the output value (parsed from `json.` outputs),
 * the raw bytes (`Buffer`) for other formats such as Python pickles, or `null` when the run has no output yet.
 */
export interface DecryptedResult extends Omit<Result, 'result'> {
  result: unknown;
  /** Id of the task, whichever form `task` has. */
  taskId: number;
  /** Id of the organization that ran it, whichever form `organization` has. */
  organizationId: number;
  /**
   * Set when the output could not be decrypted or parsed (e.g. it was encrypted for another organization);
   * `result` then keeps the string as the server sent it.
   */
  decryptionError?: string;
}

/** One page of a listing. */
export interface Page<T> {
  items: T[];
  /** Number of matching items over all pages (the `total-count` header). */
  total: number;
  page: number;
  perPage: number;
}
