import { SocketRooms } from '@federa/common';
import type { AppContext } from '../context.js';
import { userRules } from '../auth/caller.js';
import { allCollaborationIds, collaborationIdsOfOrganization } from '../repositories/collaboration.js';
import type { SocketIdentity } from './types.js';

/**
 * The room of every socket of one user or node, used to count that identity's live sockets (across instances once
 * an adapter is installed). No protocol event is ever sent to it.
 */
export const presenceRoom = (identity: Pick<SocketIdentity, 'kind' | 'id'>): string =>
  SocketRooms.presence(identity.kind, identity.id);

/** The room of one session's sockets, so that the end of one session disconnects its sockets only. */
export const sessionRoom = (sid: string): string => SocketRooms.session(sid);

/** The rooms where the users watching `rooms` hear who joins and leaves them. */
export const watchRooms = (rooms: Iterable<string>): string[] => [...rooms].map(SocketRooms.watch);

/** Whether a room is one of the server's watch rooms (kept in step with the protocol rooms of a user). */
export const isWatchRoom = (room: string): boolean => room.startsWith(SocketRooms.watch(''));

/**
 * The rooms a user's socket joins: its protocol rooms ({@link roomsOf}) and their watch rooms.
 */
export async function userRooms(ctx: AppContext, identity: SocketIdentity): Promise<string[]> {
  const rooms = await roomsOf(ctx, identity);
  return [...rooms, ...watchRooms(rooms)];
}

/**
 * The protocol rooms of an identity (docs/socket-protocol.md#rooms):
 * - a node: `all_nodes`, `collaboration_<c>` and `collaboration_<c>_organization_<o>`;
 * - a user with event VIEW GLOBAL: `collaboration_<c>` of every collaboration;
 * - with event VIEW COLLABORATION: `collaboration_<c>` of the collaborations of the own organization;
 * - with only event VIEW ORGANIZATION: `collaboration_<c>_organization_<own org>` of those collaborations.
 */
export async function roomsOf(ctx: AppContext, identity: SocketIdentity): Promise<string[]> {
  if (identity.kind === 'node') {
    const rooms: string[] = [SocketRooms.allNodes];
    if (identity.collaborationId !== null) {
      rooms.push(SocketRooms.collaboration(identity.collaborationId));
      rooms.push(SocketRooms.collaborationOrganization(identity.collaborationId, identity.organizationId));
    }
    return rooms;
  }
  const db = ctx.dbh.db;
  const rules = await userRules(db, identity.id);
  const own = (): Promise<number[]> => collaborationIdsOfOrganization(db, identity.organizationId);
  if (rules.has('event.v_glo')) {
    return (await allCollaborationIds(db)).map((c) => SocketRooms.collaboration(c));
  }
  if (rules.has('event.v_col')) return (await own()).map((c) => SocketRooms.collaboration(c));
  if (rules.has('event.v_org'))
    return (await own()).map((c) => SocketRooms.collaborationOrganization(c, identity.organizationId));
  return [];
}
