// The open loop of bench/api-mixed (`run.mjs --rate R|auto`): the users' requests on a fixed schedule over worker
// processes (open-loop-worker.mjs), the nodes reacting to `new_task` in the same processes, latency from the time
// each request was due. Why a p99 target is read this way: docs/performance.md.
import { fileURLToPath } from 'node:url';
import {
  epochNow,
  generatorHealth,
  LATE_MS,
  Latencies,
  percentile,
  startWorkers,
} from '../lib/open-loop.mjs';

export { rateOption } from '../lib/open-loop.mjs';
import { nodeRequestsPerUserRequest } from './mix.mjs';

const workerScript = fileURLToPath(new URL('./open-loop-worker.mjs', import.meta.url));

/** The share of the bare ceiling `--rate auto` offers: the project's targets. */
export const autoShare = (postgres) => (postgres ? 0.15 : 0.25);

/** `procs` worker processes for the open loop. */
export async function startOpenLoop(procs) {
  const workers = await startWorkers(workerScript, procs);
  const main = generatorHealth();
  return {
    procs,
    close: () => workers.kill(),
    /** Splits `nodes` over the processes, which log them in and connect them. */
    connectNodes: (url, nodes) =>
      workers.all('nodes', (w) => ({ url, nodes: nodes.filter((_, i) => i % procs === w) })),
    closeNodes: () => workers.all('close'),
    /** The `new_task` events the nodes received since the last call. */
    newTasks: async () => (await workers.all('arrivals')).reduce((n, a) => n + a.arrivals, 0),
    /**
     * One run at `rate` users' requests per second, split over the processes (each takes every procs-th slot of
     * the schedule and the users u with u % procs = w). Resolves with the figures added up.
     */
    async run({ target, base, rate, warmup, duration, grace, users = [], ...rest }) {
      const startAt = epochNow() + 500;
      main.start();
      const answers = await workers.all('run', (w) => ({
        ...rest,
        target,
        base,
        rate,
        startAt,
        warmup,
        duration,
        grace,
        offset: w,
        every: procs,
        users: users.filter((_, u) => u % procs === w),
      }));
      const mainHealth = main.stop();
      const rec = new Latencies();
      const schedule = { scheduled: 0, sent: 0, late: 0, lateP99: 0, lateMax: 0 };
      const sent = {};
      for (const a of answers) {
        rec.merge(a.report);
        for (const k of ['scheduled', 'sent', 'late']) schedule[k] += a.schedule[k];
        for (const k of ['lateP99', 'lateMax']) schedule[k] = Math.max(schedule[k], a.schedule[k]);
        for (const [route, n] of Object.entries(a.sent)) sent[route] = (sent[route] ?? 0) + n;
      }
      const nodeWaits = answers.flatMap((a) => a.nodeWaits ?? []).sort((a, b) => a - b);
      return { rec, schedule, sent, nodeWaits, health: answers.map((a) => a.health), mainHealth };
    },
  };
}

/** The users' rate that makes `total` requests per second in all when each task post reaches `reached` nodes. */
export const usersRate = (total, reached) => total / (1 + nodeRequestsPerUserRequest(reached));

const fmt = (x) => Math.round(x).toLocaleString('en-US');
const r1 = (x) => Math.round(x * 10) / 10;

/** Lines saying whether the schedule was kept and whether the generator kept up. */
export function scheduleLines(label, { schedule, sent, nodeWaits, health, mainHealth }, { rate, duration }) {
  const users = schedule.sent;
  const total = Object.values(sent).reduce((a, b) => a + b, 0);
  const nodes = total - users;
  const lines = [
    `${label}: users' slots ${fmt(schedule.scheduled)} scheduled (${fmt(rate)}/s), ${fmt(users)} sent; ` +
      `late by > ${LATE_MS} ms: ${fmt(schedule.late)} (${r1((100 * schedule.late) / Math.max(1, users))}%), ` +
      `lateness p99 ${r1(schedule.lateP99)} ms, max ${r1(schedule.lateMax)} ms` +
      (nodes > 0 ? `; nodes' requests ${fmt(nodes)} (${fmt(nodes / duration)}/s)` : '') +
      `; sent in all ${fmt(total / duration)} req/s`,
    `  generator: ${health.length} processes, event-loop lag p99 ` +
      `${health.map((h) => `${h.lagP99} ms`).join(' / ')} (max ${health.map((h) => `${h.lagMax}`).join(' / ')} ms), ` +
      `CPU ${health.map((h) => `${h.cpuPct}%`).join(' / ')} of a core; the idle coordinating process: lag p99 ` +
      `${mainHealth.lagP99} ms, max ${mainHealth.lagMax} ms (stalls there as well point at the machine, not the generator)`,
  ];
  if (nodeWaits.length > 0)
    lines.push(
      `  nodes' GETs held back by the node's own earlier work (one thing at a time; included in their latency): ` +
        `p50 ${r1(percentile(nodeWaits, 0.5))} ms, p99 ${r1(percentile(nodeWaits, 0.99))} ms`,
    );
  return lines;
}
