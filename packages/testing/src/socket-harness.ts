import type { AddressInfo } from 'node:net';
import { io as connectClient, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@federa/common';
import { SocketServer, presenceRoom } from '@federa/server';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';
import { until } from './wait.js';

/** A socket.io client of `/tasks`, typed with the protocol's event maps. */
export type TasksClient = Socket<ServerToClientEvents, ClientToServerEvents>;
type Presence = ReturnType<SocketServer['bind']>;
type Listener = (...args: unknown[]) => void;
type Untyped = { on(e: string, l: Listener): void; off(e: string, l: Listener): void };

export interface ConnectOptions {
  /** Send the token in the handshake's auth payload, as a browser does, rather than an Authorization header. */
  auth?: boolean;
  /** @default ['websocket'] */
  transports?: ('polling' | 'websocket')[];
}

/** What {@link hear} recorded: each event's name and arguments, in order of arrival. */
export type Heard = [event: string, ...args: unknown[]][];

/** A test app with its socket.io server, listening on a port of 127.0.0.1 chosen by the system. */
export interface SocketApp {
  t: TestApp;
  sockets: SocketServer;
  presence: Presence;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** A real socket.io client on `/tasks` (no reconnection), closed by {@link disconnectAll}. */
  connect(token: string | null, options?: ConnectOptions): TasksClient;
  /** Disconnects every client {@link connect} made (for `afterEach`). */
  disconnectAll(): void;
  /**
   * Resolves once everything the server sent `c` before this call has arrived: a marker sent to the socket itself
   * travels behind it on the same connection. The "no more events" check: after it, an event not heard will not come.
   */
  quiet(c: TasksClient): Promise<void>;
  /**
   * Whether `c` (once connected) hears `event` after `send()`: the answer waits for {@link quiet}, so an event not
   * heard by then will not come.
   */
  hears(c: TasksClient, event: keyof ServerToClientEvents, send: () => void): Promise<boolean>;
  /**
   * Waits until the server has identified the connected socket `c` and put it in its rooms (they are joined after
   * the handshake, so a `connect` on the client does not mean the rooms' events reach it yet).
   */
  joined(c: TasksClient): Promise<void>;
  /** Waits until `count` sockets are in `room` (sockets join their rooms after the handshake). */
  inRoom(room: string, count: number): Promise<void>;
  /** Waits until this instance has handled every connect and disconnect of the node's sockets. */
  settled(nodeId: number, liveSockets: number): Promise<void>;
  close(): Promise<void>;
}

const MARKER = '\u0000quiet-marker ';
let markers = 0;

/** Starts a test app with its socket server attached, listening on port 0. */
export async function startSocketApp(options: Omit<TestAppOptions, 'events'> = {}): Promise<SocketApp> {
  const sockets = new SocketServer();
  const t = await startTestApp({ ...options, events: sockets.events });
  const presence = sockets.bind(t.ctx);
  sockets.attach(t.app.server);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const clients: TasksClient[] = [];
  const inRoom = async (room: string, count: number): Promise<void> => {
    await until(
      `${count} socket(s) in ${room}`,
      async () => (await sockets.nsp.in(room).fetchSockets()).length,
      (n) => n === count,
      5000,
      20,
    );
  };
  const quiet = async (c: TasksClient): Promise<void> => {
    const id = c.id;
    if (id === undefined) throw new Error('quiet() needs a connected socket');
    const text = `${MARKER}${++markers}`;
    const arrived = received(c, 'message', (m) => m === text);
    t.ctx.events.emit(id, 'message', text);
    await arrived;
  };
  return {
    t,
    sockets,
    presence,
    url,
    connect(token, o = {}) {
      const c: TasksClient = connectClient(`${url}/tasks`, {
        forceNew: true,
        reconnection: false,
        transports: o.transports ?? ['websocket'],
        ...(token !== null && !o.auth ? { extraHeaders: { Authorization: `Bearer ${token}` } } : {}),
        ...(token !== null && o.auth ? { auth: { token } } : {}),
      });
      clients.push(c);
      return c;
    },
    disconnectAll() {
      for (const c of clients.splice(0)) c.disconnect();
    },
    quiet,
    async hears(c, event, send) {
      await connected(c);
      const heard = hear(c, [event]);
      send();
      await quiet(c);
      return heard.length > 0;
    },
    async joined(c) {
      const id = c.id;
      if (id === undefined) throw new Error('joined() needs a connected socket');
      // Its own room, then its identity's presence room at once, with the joining of the rest queued behind it.
      await until(
        `socket ${id} identified`,
        () => sockets.nsp.sockets.get(id)?.rooms.size ?? 0,
        (n) => n >= 2,
        5000,
        20,
      );
      await presence.idle();
    },
    inRoom,
    async settled(nodeId, liveSockets) {
      await inRoom(presenceRoom({ kind: 'node', id: nodeId }), liveSockets);
      await presence.idle();
    },
    async close() {
      for (const c of clients.splice(0)) c.disconnect();
      await sockets.close();
      await t.close();
    },
  };
}

/** Resolves when `c` is connected; rejects with the server's refusal. */
export const connected = (c: TasksClient): Promise<void> =>
  new Promise((resolve, reject) => {
    if (c.connected) return resolve();
    c.once('connect', () => resolve());
    c.once('connect_error', reject);
  });

/** Resolves with the reason once `c` is disconnected. */
export const disconnected = (c: TasksClient): Promise<string> =>
  new Promise((resolve) => {
    if (!c.connected) return resolve('already');
    c.once('disconnect', (reason) => resolve(reason));
  });

/** The arguments of the next `event` on `c` that `match` accepts; rejects after `timeoutMs`. */
export const received = <E extends keyof ServerToClientEvents>(
  c: TasksClient,
  event: E,
  match: (...args: Parameters<ServerToClientEvents[E]>) => boolean = () => true,
  timeoutMs = 5000,
): Promise<Parameters<ServerToClientEvents[E]>> =>
  new Promise((resolve, reject) => {
    const untyped = c as unknown as Untyped;
    const listener = (...args: unknown[]): void => {
      if (!match(...(args as Parameters<ServerToClientEvents[E]>))) return;
      clearTimeout(timer);
      untyped.off(event, listener);
      resolve(args as Parameters<ServerToClientEvents[E]>);
    };
    const timer = setTimeout(() => {
      untyped.off(event, listener);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    untyped.on(event, listener);
  });

/**
 * Records every one of `events` that `c` receives from now on (the markers of {@link SocketApp.quiet} left out).
 * Pair with `quiet(c)` to assert what a socket heard and that nothing more is coming.
 */
export function hear(c: TasksClient, events: readonly (keyof ServerToClientEvents)[]): Heard {
  const heard: Heard = [];
  for (const event of events)
    (c as unknown as Untyped).on(event, (...args) => {
      if (event === 'message' && typeof args[0] === 'string' && args[0].startsWith(MARKER)) return;
      heard.push([event, ...args]);
    });
  return heard;
}
