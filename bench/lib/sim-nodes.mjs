// Simulated nodes for the benchmarks: a federation of N organizations with a node each (seeded through the REST
// API), and light socket clients that do what a node does with the server (log in with the API key, connect to
// /tasks over WebSocket, ping, fetch their runs on `new_task`, patch results) without running containers.
import { io } from 'socket.io-client';
import { apiCaller } from './load.mjs';
import { ROOT_PASSWORD } from './processes.mjs';

/** Runs `fn` over `items`, `concurrency` at a time; resolves with the answers in order. */
export async function inParallel(items, concurrency, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

/**
 * Logs in as root on `api` and seeds `count` organizations (each with `publicKey`, if given), one collaboration
 * of them all (`encrypted` as asked) and a node for each. Returns root's token, the collaboration id and the
 * nodes ({ id, organizationId, apiKey }).
 */
export async function seedNodes(
  api,
  count,
  { encrypted = false, publicKey, tag = Date.now().toString(36) } = {},
) {
  const call = apiCaller(api);
  const { access_token: token } = await call('POST', '/token/user', {
    username: 'root',
    password: ROOT_PASSWORD,
  });
  const orgIds = await inParallel([...Array(count).keys()], 8, async (i) => {
    const body = { name: `sim-${tag}-${i}`, country: 'NL', ...(publicKey ? { public_key: publicKey } : {}) };
    return (await call('POST', '/organization', body, token)).id;
  });
  // Root's own organization joins the collaboration (a user posts tasks only in collaborations of their own).
  const me = await call('GET', '/user?username=root', undefined, token);
  const rootOrg = (me.data ?? me)[0].organization.id;
  if (publicKey) await call('PATCH', `/organization/${rootOrg}`, { public_key: publicKey }, token);
  const collab = await call(
    'POST',
    '/collaboration',
    { name: `sim-${tag}`, organization_ids: [...orgIds, rootOrg], encrypted },
    token,
  );
  const nodes = await inParallel(orgIds, 8, async (organizationId) => {
    const node = await call(
      'POST',
      '/node',
      { collaboration_id: collab.id, organization_id: organizationId },
      token,
    );
    return { id: node.id, organizationId, apiKey: node.api_key };
  });
  return { token, call, collaborationId: collab.id, nodes };
}

/**
 * One simulated node. `connect()` logs in and opens the socket; every `new_task` is timed (performance.now() at
 * arrival, in `arrivals`) and handed to `onNewTask` when set. Reconnects as socket.io does (back-off
 * `reconnectionDelay`..`reconnectionDelayMax`, randomized), which the restart benchmark relies on.
 */
export class SimNode {
  arrivals = [];
  connects = 0;
  onNewTask;
  socket;
  token = '';

  constructor(url, node, { reconnectionDelay = 1000, reconnectionDelayMax = 5000 } = {}) {
    this.url = url;
    this.node = node;
    this.options = { reconnectionDelay, reconnectionDelayMax };
    this.call = apiCaller(`${url}/api`);
  }

  async login() {
    const answer = await this.call('POST', '/token/node', { api_key: this.node.apiKey });
    this.token = answer.access_token;
  }

  /** Logs in (once) and connects; resolves at the first `connect`. */
  async connect() {
    if (!this.token) await this.login();
    const socket = io(`${this.url}/tasks`, {
      forceNew: true,
      transports: ['websocket'],
      extraHeaders: { Authorization: `Bearer ${this.token}` },
      ...this.options,
    });
    this.socket = socket;
    socket.on('connect', () => (this.connects += 1));
    socket.on('new_task', (taskId) => {
      this.arrivals.push({ taskId, at: performance.now() });
      this.onNewTask?.(taskId);
    });
    await new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
  }

  get connected() {
    return this.socket?.connected ?? false;
  }

  /** GET with this node's token (throws on refusal). */
  get(path) {
    return this.call('GET', path, undefined, this.token);
  }

  patch(path, body) {
    return this.call('PATCH', path, body, this.token);
  }

  close() {
    this.socket?.disconnect();
  }
}
