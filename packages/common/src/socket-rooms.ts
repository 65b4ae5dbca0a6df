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
   * Who hears about a task or a run (docs/socket-protocol.md#audiences): the users watching the collaboration (its
   * watch room: everyone in `collaboration_<c>` but the nodes) and the organization rooms of the organizations it
   * concerns, where their nodes and their users with only *event view organization* are. For a task
   * (`new_task`, `task_created`): the organizations with a run in it and the initiator; for a run (`status_update`,
   * `algorithm_status_change`, `run_log_update`, `kill_containers`): the run's organization and the initiator. No
   * other node hears it: in a collaboration of 200 nodes, sending every run's every change to all of them would be 200
   * emits each, to nodes that have nothing to do with it. A socket in several of these rooms gets one emit once.
   */
  audience: (collaborationId: number, organizationIds: readonly number[]): string[] => [
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
