import { io as connectClient, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '@federa/common';
import { call } from './http.js';

type Client = Socket<ServerToClientEvents, ClientToServerEvents>;

interface OpenResult {
  id: number;
  task: { id: number };
}

/**
 * A socket client that does what a node does with the server (docs/node-protocol.md) without running
 * containers: logs in with its API key, connects to `/tasks` with the `Authorization` header over WebSocket only,
 * fetches its open results after every (re)connect and on `new_task`, and reports each one completed with the
 * output `done-<result id>`. A test stand-in for the node daemon (which needs Docker); it says so.
 */
export class FakeNode {
  readonly newTasks: number[] = [];
  readonly completed: number[] = [];
  /** Result ids seen by the sync after each connect. */
  readonly synced: number[][] = [];
  connects = 0;
  disconnects = 0;
  #socket: Client | null = null;
  #token = '';
  readonly #handled = new Set<number>();
  #work: Promise<void> = Promise.resolve();

  constructor(
    /** The server's root URL (the balancer). */
    private readonly url: string,
    private readonly nodeId: number,
    private readonly apiKey: string,
  ) {}

  get api(): string {
    return `${this.url}/api`;
  }

  get connected(): boolean {
    return this.#socket?.connected ?? false;
  }

  async start(options: { reconnectionDelayMs?: number } = {}): Promise<void> {
    const login = await call(this.api, 'POST', '/token/node', { body: { api_key: this.apiKey } });
    if (login.status !== 200) throw new Error(`node login failed: ${login.status}`);
    this.#token = (login.body as { access_token: string }).access_token;
    const delay = options.reconnectionDelayMs ?? 1000;
    const socket: Client = connectClient(`${this.url}/tasks`, {
      forceNew: true,
      transports: ['websocket'],
      extraHeaders: { Authorization: `Bearer ${this.#token}` },
      reconnectionDelay: delay,
      reconnectionDelayMax: delay,
      randomizationFactor: 0,
    });
    this.#socket = socket;
    socket.on('connect', () => {
      this.connects += 1;
      this.#enqueue(async () => {
        const open = await this.#openResults();
        this.synced.push(open.map((r) => r.id));
        await this.#runAll(open);
      });
    });
    socket.on('disconnect', () => {
      this.disconnects += 1;
    });
    socket.on('new_task', (taskId: number) => {
      this.newTasks.push(taskId);
      this.#enqueue(async () => this.#runAll(await this.#openResults(taskId)));
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
  }

  /** Processes one thing at a time, as the node's queue does. */
  #enqueue(job: () => Promise<void>): void {
    this.#work = this.#work.then(job).catch(() => undefined);
  }

  async #openResults(taskId?: number): Promise<OpenResult[]> {
    const query = `state=open&include=task&node_id=${this.nodeId}${taskId !== undefined ? `&task_id=${taskId}` : ''}`;
    const r = await call(this.api, 'GET', `/result?${query}`, { token: this.#token });
    if (r.status !== 200) throw new Error(`fetching open results failed: ${r.status}`);
    return r.body as OpenResult[];
  }

  async #runAll(results: OpenResult[]): Promise<void> {
    for (const result of results) {
      if (this.#handled.has(result.id)) continue;
      this.#handled.add(result.id);
      const now = (): string => new Date().toISOString().replace('Z', '');
      await this.#patch(result.id, { started_at: now() });
      await this.#patch(result.id, { status: 'active' });
      await this.#patch(result.id, {
        result: Buffer.from(`done-${result.id}`).toString('base64'),
        log: 'fake node',
        finished_at: now(),
        status: 'completed',
      });
      this.completed.push(result.id);
    }
  }

  async #patch(id: number, body: Record<string, unknown>): Promise<void> {
    const r = await call(this.api, 'PATCH', `/result/${id}`, { token: this.#token, body });
    if (r.status !== 200)
      throw new Error(`PATCH /result/${id} failed: ${r.status} ${JSON.stringify(r.body)}`);
  }

  /** Disconnects for good (no reconnection). */
  async stop(): Promise<void> {
    this.#socket?.disconnect();
    await this.#work;
  }
}
