/**
 * What the network tests of the container runtimes probe: one-liners a container runs to reach an address, servers
 * of the host, and an "outside" server that only the host's routing reaches.
 */
import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import { networkInterfaces } from 'node:os';
import { promisify } from 'node:util';
import type { Cleanups } from './container-engines.js';

const run = promisify(execFile);

/** Node one-liner: connects to `host port`; prints `connected`, `timeout` or `error <code>`. */
export const TCP_PROBE = `const [h, p] = process.argv.slice(1);
const s = require('net').connect({ host: h, port: Number(p), timeout: 3000 });
s.on('connect', () => { console.log('connected'); process.exit(0); });
s.on('timeout', () => { console.log('timeout'); process.exit(2); });
s.on('error', (e) => { console.log('error ' + e.code); process.exit(1); });`;

/** Node one-liner: GETs the URL, retrying for 5 s; prints `body:<body>` or `unreachable`. */
export const HTTP_GET_RETRY = `(async () => { for (let i = 0; i < 50; i++) {
  try { const r = await fetch(process.argv[1]); console.log('body:' + (await r.text())); process.exit(0); }
  catch { await new Promise((r) => setTimeout(r, 100)); } }
  console.log('unreachable'); process.exit(1); })();`;

/** A TCP server of the host on `host` that answers `hello` and hangs up. */
export async function tcpServer(host: string): Promise<{ port: number; close: () => Promise<void> }> {
  const srv = net.createServer((sock) => {
    sock.on('error', () => undefined);
    sock.end('hello\n');
  });
  await new Promise<void>((resolve, reject) => {
    srv.on('error', reject);
    srv.listen(0, host, () => resolve());
  });
  const addr = srv.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return { port, close: () => new Promise<void>((resolve) => srv.close(() => resolve())) };
}

/** This host's first non-loopback IPv4 address (a server bound to it is "a service of the host"). */
export function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('10.254.')) return a.address;
    }
  }
  throw new Error('this host has no non-loopback IPv4 address');
}

const reachable = (host: string, port: number): Promise<boolean> =>
  new Promise<boolean>((resolve) => {
    const sock = net.connect({ host, port }, () => {
      sock.destroy();
      resolve(true);
    });
    sock.on('error', () => resolve(false));
  });

/**
 * "Outside": a TCP server in a network namespace of our own behind a veth pair (10.254.N.2, host side .1), so that
 * reaching it needs forwarding by the host, as the internet would. Never a public address. Runs as root; what it
 * makes is undone by `cleanups`.
 */
export async function startOutside(
  prefix: string,
  cleanups: Cleanups,
): Promise<{ outsideAddr: string; outsidePort: number }> {
  const ns = `${prefix}-ns`;
  const veth = `${prefix.slice(0, 10)}v`; // interface names have at most 15 characters
  const octet = Math.floor(Math.random() * 200) + 20;
  const outsideAddr = `10.254.${octet}.2`;
  const outsidePort = 7777;
  const hostSide = `10.254.${octet}.1`;
  await run('ip', ['netns', 'add', ns]);
  cleanups.push(() => run('ip', ['netns', 'del', ns]));
  await run('ip', ['link', 'add', `${veth}0`, 'type', 'veth', 'peer', 'name', `${veth}1`]);
  cleanups.push(() => run('ip', ['link', 'del', `${veth}0`]));
  await run('ip', ['link', 'set', `${veth}1`, 'netns', ns]);
  await run('ip', ['addr', 'add', `${hostSide}/30`, 'dev', `${veth}0`]);
  await run('ip', ['link', 'set', `${veth}0`, 'up']);
  const inNs = (...args: string[]) => run('ip', ['netns', 'exec', ns, ...args]);
  await inNs('ip', 'addr', 'add', `${outsideAddr}/30`, 'dev', `${veth}1`);
  await inNs('ip', 'link', 'set', `${veth}1`, 'up');
  await inNs('ip', 'link', 'set', 'lo', 'up');
  await inNs('ip', 'route', 'add', 'default', 'via', hostSide);
  const listen = `require('net').createServer((s) => { s.on('error', () => {}); s.end('hi'); }).listen(${outsidePort}, '${outsideAddr}')`;
  const server = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', listen], { stdio: 'ignore' });
  cleanups.push(async () => server.kill('SIGKILL'));
  for (let i = 0; !(await reachable(outsideAddr, outsidePort)); i++) {
    if (i > 50) throw new Error(`test server in network namespace ${ns} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { outsideAddr, outsidePort };
}
