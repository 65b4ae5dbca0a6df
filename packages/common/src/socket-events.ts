/**
 * The socket protocol between the server and its nodes and clients (vantage6 3.x compatible), declared once and
 * used by both sides: `Server<ClientToServerEvents, ServerToClientEvents>` on the server,
 * `Socket<ServerToClientEvents, ClientToServerEvents>` in a node or client. `docs/socket-protocol.md` describes it.
 */

/** The socket.io path, at the host root (never under `api_path`). */
export const SOCKET_PATH = '/socket.io';

/** The only namespace nodes and clients use. */
export const SOCKET_NAMESPACE = '/tasks';

/**
 * Handshake header by which a client says it comes back when a `server_busy` refusal's `retry_after_ms` says, on the
 * same connection (the Federa node sends it with the value {@link ADMISSION_RETRY_AFTER}). Without it, the server
 * closes a refused client's connection so that its own reconnection brings it back (docs/socket-protocol.md#admission).
 */
export const ADMISSION_HEADER = 'x-federa-admission';
export const ADMISSION_RETRY_AFTER = 'retry-after';

/** `node-online` / `node-offline`. */
export interface NodePresencePayload {
  id: number;
  name: string | null;
  org_id: number;
}

/** `algorithm_status_change` as a node reports it. */
export interface AlgorithmStatusReport {
  node_id?: number;
  status: string;
  result_id: number;
  task_id?: number;
  collaboration_id?: number;
  organization_id?: number;
  parent_id?: number | null;
}

/** `algorithm_status_change` as the server relays it to `collaboration_<c>` (with `run_id`). */
export interface AlgorithmStatusChangePayload {
  status: string;
  result_id: number;
  task_id: number;
  run_id: number;
  collaboration_id: number;
  node_id: number;
  organization_id: number;
  parent_id: number | null;
}

/** `task_created`, emitted when `POST /task` creates a task, before its results exist. */
export interface TaskCreatedPayload {
  task_id: number;
  run_id: number;
  collaboration_id: number;
  init_org_id: number;
}

/** `status_update`, emitted when a node changes a result. */
export interface StatusUpdatePayload {
  result_id: number;
}

/** One run to kill in `kill_containers`. */
export interface KillListEntry {
  task_id: number;
  result_id: number;
  organization_id: number;
}

/** `kill_containers`: kill the listed runs, or (with `node_id`) everything running on that node. */
export type KillContainersPayload =
  { kill_list: KillListEntry[]; collaboration_id: number } | { node_id: number; collaboration_id: number };

/** `node_info_update` (docs/socket-protocol.md#events-from-clients, docs/node-protocol.md#policies): what a node shares of its configuration after each (re)connect. */
export interface NodeInfoPayload {
  encryption?: boolean;
  allowed_algorithms?: string[] | 'all';
  allowed_users?: number[];
  allowed_orgs?: (number | string)[];
  /** The node's database labels and their types, as vantage6 4.x nodes send them (never their location). */
  database_labels?: string[];
  database_types?: string[];
  [key: string]: unknown;
}

/** `run_log`: the next piece of an active run's stdout/stderr, as a node streams it (docs/run-logs.md). */
export interface RunLogBatch {
  result_id: number;
  /** How many characters of this run's log the node sent before this batch (what the server has taken). */
  offset: number;
  /** The log text; in an encrypted collaboration, sealed pieces (`sealed:…` lines, docs/run-logs.md). */
  text: string;
  /** A sealed batch: how many characters of log it holds (what `offset` counts). Absent for plain text. */
  plain_length?: number;
}

/** The server's answer to `run_log`. */
export interface RunLogAck {
  /** Whether the batch was appended (or had been already). */
  ok: boolean;
  /** How many characters of this run's log the server has taken: where the node's next batch starts. */
  offset: number;
  /** Send nothing more for this run: its live log reached the server's cap, or the run is not active (or not yours). */
  stop?: boolean;
  /** Why the batch was refused (the run is finished, or not this node's, or the batch is malformed). */
  error?: string;
}

/**
 * `run_log_update`: a batch was appended to an active run's live log (docs/run-logs.md). It carries no log text:
 * a client reads the log through `GET /result/{id}`, which checks who may see it.
 */
export interface RunLogUpdatePayload {
  result_id: number;
  task_id: number;
  /** How many characters the run's `log` (as `GET /result/{id}` shows it) holds now, this batch included. */
  offset: number;
}

/** Events the server emits on namespace `/tasks`. */
export interface ServerToClientEvents {
  /** A task was created in the collaboration: fetch the open results of this task id. */
  new_task: (taskId: number) => void;
  task_created: (payload: TaskCreatedPayload) => void;
  status_update: (payload: StatusUpdatePayload) => void;
  algorithm_status_change: (payload: AlgorithmStatusChangePayload) => void;
  /** Federa: a batch was appended to a run's live log; read it with `GET /result/{id}`. */
  run_log_update: (payload: RunLogUpdatePayload) => void;
  kill_containers: (payload: KillContainersPayload) => void;
  'node-online': (payload: NodePresencePayload) => void;
  'node-offline': (payload: NodePresencePayload) => void;
  /** Human-readable notes: "<name> joined room <room>". */
  message: (text: string) => void;
  /**
   * The token of the handshake was missing, invalid or expired: refresh it and reconnect. Emitted twice, once with
   * `""` (3.3–3.5 nodes) and once without argument (3.6+ nodes).
   */
  expired_token: (legacy?: string) => void;
  /** 3.3–3.5 relay of a failed container: the run id. */
  container_failed: (runId: number) => void;
}

/** Events nodes and clients send on namespace `/tasks`. */
export interface ClientToServerEvents {
  message: (text: string) => void;
  error: (text: string) => void;
  algorithm_status_change: (report: AlgorithmStatusReport) => void;
  node_info_update: (info: NodeInfoPayload) => void;
  /** Federa nodes: the next batch of an active run's log; answered (acknowledgement) with a RunLogAck. */
  run_log: (batch: RunLogBatch, ack: (answer: RunLogAck) => void) => void;
  /** Keep-alive of 3.8.2+ nodes: marks the node online and refreshes `last_seen`. */
  ping: () => void;
  /** vantage6 4.x nodes: a piece of a container's output, taken into the run's live log; not answered. */
  algorithm_log: (piece: {
    run_id: number;
    log: string;
    task_id?: number;
    collaboration_id?: number;
  }) => void;
  /** 3.3–3.5 nodes: a container exited with a non-zero code. */
  container_failed: (report: {
    node_id?: number;
    status_code?: number;
    result_id: number;
    collaboration_id?: number;
  }) => void;
}

export type ServerToClientEvent = keyof ServerToClientEvents;
export type ClientToServerEvent = keyof ClientToServerEvents;
