#!/usr/bin/env node
// A fleet of simulated nodes in one process (bench/lib/sim-fleet-client.mjs starts several, so that the sockets of a
// large federation are not all on one event loop). Each node connects the way the Federa node does, with its code:
// `POST /api/token/node` with its API key, then the node's own SocketChannel (@federa/node: polling then WebSocket,
// `Authorization: Bearer` on the handshake, jittered back-off, the server's retry hint honoured), and on every
// (re)connect `node_info_update` and `GET /api/result?state=open&include=task&node_id=…`, as the node does; on
// `new_task`, the GET of that task's open runs. Commands and reports are IPC messages (see sim-fleet-client.mjs).
import { SocketChannel } from '@federa/node';

const fleet = [];
const counts = { busy: 0, connectErrors: 0, syncs: 0, syncErrors: 0, newTasks: 0 };
let pingMs = 60_000;

/** The logger SocketChannel writes to: only counted. */
const logger = {
  info: (o) => o?.event === 'socket.server_busy' && (counts.busy += 1),
  warn: (o) => o?.event === 'socket.connect_error' && (counts.connectErrors += 1),
  debug: () => undefined,
  error: () => undefined,
  child: () => logger,
};

async function call(url, method, path, token, body) {
  const r = await fetch(`${url}/api${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status}`);
  return json;
}

const nodeIdOf = (token) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub;

class SimFleetNode {
  connects = 0;
  /** `connects` when the bench last said `mark` (a restart): the node is back once it has connected since. */
  mark = 0;
  token = 'none';
  constructor(url, apiKey) {
    this.url = url;
    this.apiKey = apiKey;
  }

  async login() {
    this.token = (
      await call(this.url, 'POST', '/token/node', undefined, { api_key: this.apiKey })
    ).access_token;
    this.id = nodeIdOf(this.token);
  }

  sync(query) {
    if (!this.apiKey) return;
    call(this.url, 'GET', `/result?state=open&include=task&node_id=${this.id}${query}`, this.token)
      .then(() => (counts.syncs += 1))
      .catch(() => (counts.syncErrors += 1));
  }

  connect() {
    this.channel = new SocketChannel({
      serverBase: this.url,
      token: this.token,
      log: logger,
      handlers: {
        onConnect: () => {
          this.connects += 1;
          if (!this.apiKey) return; // bare socket.io: nothing to say or fetch
          this.channel.emitNodeInfo({ encryption: 'False', allowed_algorithms: [] });
          this.sync('');
        },
        onNewTask: (taskId) => {
          counts.newTasks += 1;
          this.sync(`&task_id=${taskId}`);
        },
        onExpiredToken: () => undefined,
        onKill: () => undefined,
      },
      // The node's keep-alive `ping`, every `pingMs` (the node's default is 60 s).
      pingIntervalMs: pingMs,
    });
    this.channel.connect();
  }
}

/** Runs `fn` over `items`, `concurrency` at a time. */
async function inParallel(items, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

const report = () => ({
  type: 'status',
  connected: fleet.filter((n) => n.channel?.connected).length,
  back: fleet.filter((n) => n.channel?.connected && n.connects > n.mark).length,
  connects: fleet.reduce((a, n) => a + n.connects, 0),
  ...counts,
  rssMb: Math.round(process.memoryUsage().rss / 1048576),
});

process.on('message', async (msg) => {
  try {
    if (msg.cmd === 'init') {
      fleet.length = 0;
      pingMs = msg.pingMs ?? pingMs;
      for (const key of msg.apiKeys) fleet.push(new SimFleetNode(msg.url, key));
      if (msg.apiKeys.length === 0)
        for (let i = 0; i < msg.count; i++) fleet.push(new SimFleetNode(msg.url, null));
      process.send({ type: 'ok', cmd: 'init' });
    } else if (msg.cmd === 'login') {
      await inParallel(fleet, msg.concurrency ?? 4, (n) => n.login());
      process.send({ type: 'ok', cmd: 'login' });
    } else if (msg.cmd === 'connect') {
      for (const n of fleet) n.connect();
      process.send({ type: 'ok', cmd: 'connect' });
    } else if (msg.cmd === 'mark') {
      for (const n of fleet) n.mark = n.connects;
      process.send({ type: 'ok', cmd: 'mark' });
    } else if (msg.cmd === 'status') {
      process.send(report());
    } else if (msg.cmd === 'close') {
      await Promise.all(fleet.map((n) => n.channel?.close()));
      process.send({ type: 'ok', cmd: 'close' });
    }
  } catch (error) {
    process.send({ type: 'error', cmd: msg.cmd, message: String(error?.message ?? error) });
  }
});
// The bench gone (ended, killed): so is the fleet.
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
