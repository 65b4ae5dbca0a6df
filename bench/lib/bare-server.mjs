#!/usr/bin/env node
// The ceiling of the benchmarks: bare Fastify and bare socket.io in their own process, doing the least the same
// shape of work can do. `node bare-server.mjs` prints one JSON line {"port": N} once listening; stops on SIGTERM.
//   GET /hello        {"hello":"world"}
//   POST /emit        answers {"sent": N}, then sends `new_task` N (a counter) to every socket of /tasks
//   GET /run/:n       a JSON array of one run-sized object (about 1 KB, as a node's run with its task), made per call
//   GET /work/:us     spends :us microseconds of CPU on the clock, then answers {"hello":"world"}: a server that does
//                     as much work per request as another one measured, with nothing else (bench/api-mixed --rate)
//   socket.io /tasks  accepts every WebSocket client (no authentication) and answers `ping` with `pong`
import Fastify from 'fastify';
import { Server } from 'socket.io';

const app = Fastify();
const io = new Server(app.server);
const tasks = io.of('/tasks');
tasks.on('connection', (socket) => socket.on('ping', () => socket.emit('pong')));
let n = 0;
app.get('/hello', async () => ({ hello: 'world' }));
app.get('/work/:us', async (request) => {
  const until =
    process.hrtime.bigint() + BigInt(Math.min(Math.max(Number(request.params.us) || 0, 0), 1e6)) * 1000n;
  while (process.hrtime.bigint() < until);
  return { hello: 'world' };
});
app.get('/run/:n', async (request) => [
  {
    id: Number(request.params.n),
    input: 'x'.repeat(700),
    status: 'pending',
    task: {
      id: n,
      name: 'bench',
      image: 'bench/image',
      collaboration: { id: 1, link: '/api/collaboration/1' },
    },
  },
]);
app.post('/emit', async (request, reply) => {
  const sent = ++n;
  reply.raw.once('finish', () => tasks.emit('new_task', sent));
  return { sent };
});
// The same listen backlog as the Federa server (packages/server/src/server.ts).
await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1', backlog: 4096 });
process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`);
process.on('SIGTERM', () => {
  io.close();
  void app.close().then(() => process.exit(0));
});
