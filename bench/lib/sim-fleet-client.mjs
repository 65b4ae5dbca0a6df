// The simulated nodes of bench/lib/sim-fleet.mjs, split over several processes; this side gives the commands and adds
// up the reports. `startFleet(n)` forks ceil(n / perProcess) processes.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fleetScript = fileURLToPath(new URL('./sim-fleet.mjs', import.meta.url));

function child() {
  const proc = fork(fleetScript, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = [];
  proc.on('message', (msg) => {
    const i = waiting.findIndex((w) => w.accepts(msg));
    if (i < 0) return;
    const [w] = waiting.splice(i, 1);
    if (msg.type === 'error') w.reject(new Error(`fleet ${msg.cmd}: ${msg.message}`));
    else w.resolve(msg);
  });
  const expect = (accepts) => new Promise((resolve, reject) => waiting.push({ accepts, resolve, reject }));
  const ready = expect((m) => m.type === 'ready');
  const ask = (cmd, extra = {}) => {
    const answer = expect((m) => m.cmd === cmd || (cmd === 'status' && m.type === 'status'));
    proc.send({ cmd, ...extra });
    return answer;
  };
  return { proc, ready, ask };
}

/**
 * `count` simulated nodes over ceil(count / perProcess) processes. `init(url, apiKeys)` gives them a server and their
 * API keys (none: bare socket.io, `count` sockets without login); then `login()`, `connect()`, `status()` (summed
 * over the processes), `close()`, `kill()`.
 */
export async function startFleet(count, { perProcess = 1250, pingMs = 60_000 } = {}) {
  const parts = Math.max(1, Math.ceil(count / perProcess));
  const children = Array.from({ length: parts }, child);
  await Promise.all(children.map((c) => c.ready));
  const share = (i) => Math.floor(((i + 1) * count) / parts) - Math.floor((i * count) / parts);
  const all = (cmd, extra) => Promise.all(children.map((c, i) => c.ask(cmd, extra?.(i) ?? {})));
  return {
    processes: parts,
    init: (url, apiKeys = null) =>
      all('init', (i) => {
        const from = Math.floor((i * count) / parts);
        return {
          url,
          pingMs,
          count: share(i),
          apiKeys: apiKeys ? apiKeys.slice(from, from + share(i)) : [],
        };
      }),
    login: () => all('login'),
    connect: () => all('connect'),
    status: async () => {
      const reports = await all('status');
      const sum = {};
      for (const r of reports)
        for (const [k, v] of Object.entries(r)) if (typeof v === 'number') sum[k] = (sum[k] ?? 0) + v;
      return sum;
    },
    /** From now on `status().back` counts the nodes connected again since this moment. */
    mark: () => all('mark'),
    close: () => all('close'),
    kill: () => children.forEach((c) => c.proc.kill('SIGKILL')),
  };
}
