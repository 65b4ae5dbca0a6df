export { SocketServer, type SocketServerOptions } from './socket-server.js';
export { Presence } from './presence.js';
export { presenceRoom, roomsOf } from './rooms.js';
export type { SocketData, SocketIdentity, TasksNamespace, TasksServer, TasksSocket } from './types.js';
