import type { TasksNamespace } from '../socket/types.js';

/** The sockets open on this instance by kind: `user`, `node`, or `unauthenticated` (refused, about to close). */
export function countSockets(nsp: TasksNamespace): Map<string, number> {
  const counts = new Map<string, number>();
  for (const socket of nsp.sockets.values()) {
    const kind = socket.data.identity?.kind ?? 'unauthenticated';
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}
