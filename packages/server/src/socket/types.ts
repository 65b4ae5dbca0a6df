import type { Namespace, Server, Socket } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '@federa/common';

/** Who a socket belongs to, resolved once from the handshake token. */
export type SocketIdentity =
  | { kind: 'node'; id: number; name: string | null; organizationId: number; collaborationId: number | null }
  | { kind: 'user'; id: number; name: string; organizationId: number };

/** Per-socket state kept by the server (`socket.data`); readable from other instances through `fetchSockets()`. */
export interface SocketData {
  /** null when the handshake token was missing, invalid or expired. */
  identity: SocketIdentity | null;
  /** The session of the handshake token (users and nodes): its end disconnects the socket. */
  sid?: string;
  /** The socket's session began on the vantage6 4.x surface: it hears 4.x's events (socket/surfaces.ts). */
  v4?: boolean;
  /** Why the identity is missing (for the log). */
  authProblem?: string;
}

/** The `data` of a refused handshake (`connect_error`): the server is busy, come back in `retry_after_ms`. */
export interface SocketRefusal {
  code: 'server_busy';
  retry_after_ms: number;
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface InterServerEvents {}

export type TasksServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type TasksNamespace = Namespace<
  ClientToServerEvents,
  ServerToClientEvents,
  InterServerEvents,
  SocketData
>;
export type TasksSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
