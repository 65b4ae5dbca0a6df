#!/usr/bin/env node
// One process of the open loop of bench/api-mixed (run.mjs --rate): its share of the users' schedule and of the
// simulated nodes. Commands over IPC (bench/lib/open-loop.mjs startWorkers):
//   nodes {url, nodes}  log in and connect these nodes (SimNode), ping every second from then on
//   run {...}           one measured run at a rate (the bare ceiling's GET /hello, or Federa's mix with the nodes)
//   arrivals            how many `new_task` the nodes received since the last time asked
//   close               disconnect the nodes
// Latency is counted from the time a request was due: a user's request from its slot of the schedule, a node's
// GET of its open runs from the arrival of `new_task` (waiting behind the node's own earlier work included), a
// PATCH from the answer before it (it cannot go earlier).
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import { epochNow, generatorHealth, httpText, Latencies, runSchedule } from '../lib/open-loop.mjs';
import { inParallel, SimNode } from '../lib/sim-nodes.mjs';
import { ROUTE_SEQUENCE, taskBody, userPath } from './mix.mjs';

let nodes = [];
/** `new_task` events received since the last `arrivals` command. */
let arrivals = 0;
let pinger;
/** The run in progress: its window, recorder and in-flight requests (read by the nodes' `new_task` handler). */
let current = null;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => new Date().toISOString().replace('Z', '');

/** A keep-alive pool of `sockets` connections. */
const pool = (sockets) => new http.Agent({ keepAlive: true, maxSockets: sockets });
/** Each node's own connection (a node does one thing at a time). */
const nodeAgents = new Map();

/**
 * Sends one request of `run` due at `at` (`init`: agent, method, headers, body); resolves with the answer's text, or undefined on a failure. Counted in
 * the figures when `measured`.
 */
function request(run, route, at, measured, url, init) {
  if (measured) run.sent[route] = (run.sent[route] ?? 0) + 1;
  const p = (async () => {
    try {
      const { status, text } = await httpText(url, { ...init, signal: run.abort.signal });
      if (status >= 300) throw new Error(`${status} ${text.slice(0, 200)}`);
      if (measured) run.rec.record(route, epochNow() - at);
      return text;
    } catch (e) {
      if (measured) run.rec.fail(route, e, { unanswered: run.abort.signal.aborted });
      return undefined;
    }
  })();
  run.inflight.add(p);
  void p.finally(() => run.inflight.delete(p));
  return p;
}

/** A node's work on `new_task`: GET its open runs of the task, then report each (two PATCHes), one at a time. */
function onNewTask(node, taskId) {
  arrivals += 1;
  const run = current;
  const arrival = epochNow();
  if (!run || run.target !== 'federa' || arrival < run.startAt || arrival >= run.end) return;
  const measured = arrival >= run.measureFrom;
  const auth = { authorization: `Bearer ${node.token}` };
  const agent = nodeAgents.get(node);
  const work = async () => {
    // How long the node's own earlier work held this GET back (part of its latency, shown apart too).
    if (measured) run.nodeWaits.push(epochNow() - arrival);
    const text = await request(
      run,
      'node GET /result?state=open&task_id=…',
      arrival,
      measured,
      `${run.base}/result?state=open&include=task&node_id=${node.node.id}&task_id=${taskId}`,
      { agent, headers: auth },
    );
    if (text === undefined) return;
    const body = JSON.parse(text);
    for (const r of body.data ?? body) {
      for (const patch of [
        { started_at: now(), status: 'active' },
        { result: 'ZG9uZQ==', log: 'bench', finished_at: now(), status: 'completed' },
      ]) {
        const ok = await request(
          run,
          'node PATCH /result/{id}',
          epochNow(),
          measured,
          `${run.base}/result/${r.id}`,
          {
            agent,
            method: 'PATCH',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify(patch),
          },
        );
        if (ok === undefined) return;
      }
    }
  };
  const queue = (run.queues.get(node) ?? Promise.resolve()).then(work);
  run.queues.set(node, queue);
}

/** The request of users' slot `i` (one of this process's `users`, in turn). */
function userSend(run, i, at, measured) {
  // The users in turn, shifted by one at each pass over the route sequence so that each gets every route.
  const u = (Math.floor(i / run.every) + Math.floor(i / ROUTE_SEQUENCE.length)) % run.users.length;
  const user = run.users[u];
  const agent = run.agents[u];
  if (run.target === 'bare') {
    // `barePath`: bare Fastify's GET /hello, or its GET /work/:us (as much CPU per request as Federa spent).
    const path = run.barePath ?? '/hello';
    void request(run, `bare GET ${path}`, at, measured, `${run.base}${path}`, { agent });
    return;
  }
  const route = ROUTE_SEQUENCE[i % ROUTE_SEQUENCE.length];
  if (route === 'POST /task') {
    const n = ++run.posted;
    void request(run, route, at, measured, `${run.base}/task`, {
      agent,
      method: 'POST',
      headers: { ...user.auth, 'content-type': 'application/json' },
      body: taskBody(run.collaborationId, run.orgIds, n, `mixed-open ${run.tag} ${n}`),
    }).then((text) => text && run.taskIds.push(JSON.parse(text).id));
    return;
  }
  const path = userPath(route, {
    userId: user.id,
    taskIds: run.taskIds,
    collaborationId: run.collaborationId,
  });
  void request(run, route, at, measured, `${run.base}${path}`, { agent, headers: user.auth });
}

async function run(args) {
  const { rate, startAt, warmup, duration, grace, offset, every } = args;
  const measureFrom = startAt + warmup * 1000;
  const end = measureFrom + duration * 1000;
  const r = {
    ...args,
    measureFrom,
    end,
    rec: new Latencies(),
    sent: {},
    inflight: new Set(),
    queues: new Map(),
    abort: new AbortController(),
    posted: 0,
    nodeWaits: [],
    agents: args.users.map(() => pool(args.connsPerUser)),
  };
  // One signal for every request of the run (each adds a listener while it is in flight).
  setMaxListeners(0, r.abort.signal);
  current = r;
  const health = generatorHealth();
  const slots = { rate, offset, every };
  if (warmup > 0)
    await runSchedule({ ...slots, startAt, seconds: warmup, send: (i, at) => userSend(r, i, at, false) });
  health.start();
  const schedule = await runSchedule({
    ...slots,
    startAt,
    seconds: warmup + duration,
    // Slots of the warm-up are behind by now: start at the first of the measured window.
    offset: offset + Math.ceil((warmup * rate - offset) / every) * every,
    send: (i, at) => userSend(r, i, at, true),
  });
  const gen = health.stop();
  // What is still in flight gets `grace` seconds; then it is given up (a failure: no answer).
  const giveUpAt = epochNow() + grace * 1000;
  while (r.inflight.size > 0 && epochNow() < giveUpAt)
    await Promise.race([Promise.allSettled([...r.inflight]), sleep(giveUpAt - epochNow())]);
  r.abort.abort();
  await Promise.allSettled([...r.queues.values()]);
  await Promise.allSettled([...r.inflight]);
  current = null;
  for (const a of r.agents) a.destroy();
  return {
    report: r.rec.toJSON(),
    schedule,
    health: gen,
    sent: r.sent,
    posted: r.posted,
    nodeWaits: r.nodeWaits,
  };
}

process.on('message', async (msg) => {
  try {
    if (msg.cmd === 'nodes') {
      nodes = await inParallel(msg.nodes, 20, async (n) => {
        const node = new SimNode(msg.url, n);
        await node.connect();
        nodeAgents.set(node, pool(1));
        node.onNewTask = (taskId) => onNewTask(node, taskId);
        return node;
      });
      pinger = setInterval(() => {
        for (const node of nodes) node.socket.emit('ping');
      }, 1000);
      process.send({ cmd: msg.cmd, ok: true });
    } else if (msg.cmd === 'run') {
      process.send({ cmd: msg.cmd, ok: true, ...(await run(msg)) });
    } else if (msg.cmd === 'arrivals') {
      process.send({ cmd: msg.cmd, ok: true, arrivals });
      arrivals = 0;
    } else if (msg.cmd === 'close') {
      clearInterval(pinger);
      for (const n of nodes) n.close();
      for (const a of nodeAgents.values()) a.destroy();
      nodeAgents.clear();
      nodes = [];
      process.send({ cmd: msg.cmd, ok: true });
    } else {
      process.send({ cmd: msg.cmd, error: `unknown command ${msg.cmd}` });
    }
  } catch (e) {
    process.send({ cmd: msg.cmd, error: String(e?.message ?? e) });
  }
});
// The bench gone (ended, killed): so is this process.
process.on('disconnect', () => process.exit(0));
process.send({ cmd: 'ready', ok: true });
