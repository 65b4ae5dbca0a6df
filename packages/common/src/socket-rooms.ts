/**
 * The names of the socket.io rooms of namespace `/tasks`, computed here only (docs/socket-protocol.md#rooms). The
 * protocol rooms are what vantage6 3.6+ nodes and clients expect; the server's own rooms are only joined by the
 * server, to find the sockets of an identity or a session.
 */
export const SocketRooms = {
  /** Every connected node. */
  allNodes: 'all_nodes',
  /** Nodes of a collaboration, and users that may watch all its events. */
  collaboration: (collaborationId: number): string => `collaboration_${collaborationId}`,
  /** The node of one organization in a collaboration, and users that may watch only their organization's events. */
  collaborationOrganization: (collaborationId: number, organizationId: number): string =>
    `collaboration_${collaborationId}_organization_${organizationId}`,
  /**
   * Where every event of a run goes (`status_update`, `algorithm_status_change`, `run_log_update`, `kill_containers`;
   * docs/socket-protocol.md#a-runs-audience): the collaboration's room, and the organization rooms of the
   * organizations it concerns (the run's, the task's initiator), where users with only *event view organization*
   * are; no other member's. A socket in several gets one emit once.
   */
  runAudience: (collaborationId: number, organizationIds: readonly number[]): string[] => [
    `collaboration_${collaborationId}`,
    ...[...new Set(organizationIds)].map((o) => `collaboration_${collaborationId}_organization_${o}`),
  ],
  /**
   * Where `new_task` goes (docs/socket-protocol.md#a-new-tasks-audience): the users watching the collaboration
   * (its watch room: everyone in `collaboration_<c>` but the nodes) and the organization rooms of the organizations
   * that have a run in the task, where their nodes are. A node with no run in the task is not told: it would fetch
   * nothing (a task for 2 of 200 organizations made 200 nodes fetch their open runs).
   */
  newTaskAudience: (collaborationId: number, organizationIds: readonly number[]): string[] => [
    `federa:watch:collaboration_${collaborationId}`,
    ...[...new Set(organizationIds)].map((o) => `collaboration_${collaborationId}_organization_${o}`),
  ],
  /** The server's own: every socket of one user or node, to count its live sockets. */
  presence: (kind: 'user' | 'node', id: number): string => `federa:${kind}:${id}`,
  /** The server's own: every socket of one session (login), so that the end of the session reaches them. */
  session: (sid: string): string => `federa:session:${sid}`,
  /**
   * The server's own: the users' sockets of one protocol room, the only sockets told who joined or left it
   * (`message`, `node-online`, `node-offline`; docs/socket-protocol.md#presence-announcements).
   */
  watch: (room: string): string => `federa:watch:${room}`,
} as const;
