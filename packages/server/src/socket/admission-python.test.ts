import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '@federa/testing';
import { useSocketApp } from '@federa/testing/hooks';
import type { SocketServer } from './socket-server.js';

/**
 * What a vantage6 3.x node's socket client does: Debian's python-socketio 5.7 (installed by setup), a client per
 * thread with the `/tasks` namespace, connected with `wait=False` as the 3.x node connects. It prints, per client,
 * whether it holds `/tasks` once all do or `seconds` have passed, and whether it was refused on the way.
 */
const CLIENTS = String.raw`
import os, sys, time, threading, json
import socketio
url, token, n, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
refused, clients = set(), []
class Tasks(socketio.ClientNamespace):
    def __init__(self, i):
        super().__init__('/tasks')
        self.i = i
    def on_connect_error(self, data):
        refused.add(self.i)
def start(i):
    sio = socketio.Client(request_timeout=60)
    sio.register_namespace(Tasks(i))
    sio.connect(url, headers={'Authorization': 'Bearer ' + token}, wait=False)
    clients.append((i, sio))
threads = [threading.Thread(target=start, args=(i,)) for i in range(n)]
for t in threads: t.start()
for t in threads: t.join()
end = time.time() + seconds
while time.time() < end and not all('/tasks' in sio.namespaces for _, sio in clients):
    time.sleep(0.2)
print(json.dumps([{'connected': sio.connected, 'tasks': '/tasks' in sio.namespaces, 'refused': i in refused}
                  for i, sio in sorted(clients, key=lambda c: c[0])]))
sys.stdout.flush()
for _, sio in clients:
    sio.disconnect()
# python-socketio 5.7 can leave a reconnect attempt's Engine.IO threads running after disconnect(), and the
# interpreter then waits on them forever: the answer is printed, so leave at once.
os._exit(0)
`;

describe('socket admission and vantage6 3.x nodes (python-socketio 5.7)', () => {
  let t: TestApp;
  let sockets: SocketServer;
  let url: string;
  let dir: string;
  useSocketApp(({ s }) => ({ t, sockets, url } = s), { config: { socket_max_pending: 1 } });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'federa-admission-python-'));
    await writeFile(join(dir, 'clients.py'), CLIENTS);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('every refused client comes back on its own and holds /tasks: none counts itself connected without it', async () => {
    const org = await t.fx.organization();
    const collab = await t.fx.collaboration([org]);
    const token = await (await t.fx.node(org, collab)).token();
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        '/usr/bin/python3',
        [join(dir, 'clients.py'), url, token, '16', '30'],
        { timeout: 60_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    const clients = JSON.parse(out) as { connected: boolean; tasks: boolean; refused: boolean }[];
    // The test is about refused clients: some must have been refused on the way.
    expect(sockets.admission?.stats.refused).toBeGreaterThan(0);
    expect(clients.some((c) => c.refused)).toBe(true);
    expect(clients.filter((c) => !c.tasks)).toEqual([]);
    expect(clients.every((c) => c.connected)).toBe(true);
  }, 90_000);
});
