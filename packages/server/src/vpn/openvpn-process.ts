import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { createInterface } from 'node:readline';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Runs the OpenVPN server as a child process (local mode; in Docker mode the `federa/vpn-server` container runs
 * the same configuration, docs/vpn.md). Its output goes to the server log as structured lines; when it exits
 * unexpectedly it is started again with a growing pause (1 s … 30 s).
 */
export class OpenVpnProcess {
  #child: ChildProcess | null = null;
  #stopping = false;
  #restarts = 0;
  #timer: NodeJS.Timeout | null = null;
  #ready: Promise<void>;
  #markReady: () => void = () => undefined;
  #lastProblem: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly log: FastifyBaseLogger,
    private readonly binary = 'openvpn',
  ) {
    this.#ready = new Promise((resolve) => (this.#markReady = resolve));
  }

  /** Starts OpenVPN; rejects with a readable error when the program cannot be run at all. */
  async start(): Promise<void> {
    const found = spawnSync('/bin/sh', ['-c', 'command -v "$0"', this.binary]);
    if (found.status !== 0)
      throw new Error(
        `the VPN server program "${this.binary}" is not installed (Debian: apt-get install openvpn)`,
      );
    await this.#spawn();
  }

  /**
   * Resolves once OpenVPN reports "Initialization Sequence Completed" (its tunnel is up); rejects after
   * `timeoutMs` with the last problem OpenVPN reported (e.g. its port is taken).
   */
  ready(timeoutMs = 30_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `the VPN server did not come up within ${timeoutMs / 1000} s${this.#lastProblem ? `: ${this.#lastProblem}` : ''}`,
            ),
          ),
        timeoutMs,
      );
      timer.unref();
    });
    return Promise.race([this.#ready, late]).finally(() => clearTimeout(timer));
  }

  #spawn(): Promise<void> {
    return new Promise((resolve, reject) => {
      // OpenVPN must not outlive the server, even one killed with -9: a small shell watches the pipe of its
      // standard input and stops OpenVPN when the pipe closes (the server exited, or `stop` closed it).
      const child = spawn(
        '/bin/sh',
        [
          '-c',
          'exec 3<&0; "$0" "$@" <&- & p=$!; (read _ <&3; kill $p 2>/dev/null) & w=$!; wait $p; s=$?; kill $w 2>/dev/null; exit $s',
          this.binary,
          '--cd',
          this.dir,
          '--config',
          'server.conf',
        ],
        { stdio: ['pipe', 'pipe', 'pipe'] },
      );
      this.#child = child;
      child.once('spawn', () => resolve());
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT')
          reject(
            new Error(
              `the VPN server program "${this.binary}" is not installed (Debian: apt-get install openvpn)`,
            ),
          );
        else reject(error);
      });
      for (const stream of [child.stdout, child.stderr]) {
        if (!stream) continue;
        createInterface({ input: stream }).on('line', (line) => {
          if (line.includes('Initialization Sequence Completed')) {
            this.#restarts = 0;
            this.log.info({ event: 'vpn.server_ready' }, 'the VPN server is up');
            this.#markReady();
          }
          const level = !line.includes('Note:') && /error|fatal|cannot|failed/i.test(line) ? 'warn' : 'debug';
          if (level === 'warn') this.#lastProblem = line.slice(0, 300);
          this.log[level]({ event: 'vpn.server_output', line: line.slice(0, 500) }, 'openvpn');
        });
      }
      child.once('exit', (code, signal) => {
        this.#child = null;
        if (this.#stopping) return;
        const pause = Math.min(30_000, 1000 * 2 ** this.#restarts++);
        this.log.warn(
          { event: 'vpn.server_exited', code, signal, restart_in_ms: pause },
          'the VPN server stopped; starting it again',
        );
        this.#timer = setTimeout(() => {
          this.#spawn().catch((error: unknown) =>
            this.log.error(
              { event: 'vpn.server_restart_failed', err: error },
              'the VPN server could not be restarted',
            ),
          );
        }, pause);
        this.#timer.unref();
      });
    });
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    const child = this.#child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * Sends one command to OpenVPN's management interface (a Unix socket) and returns its first answer line, or
 * null when nothing listens there (the VPN server is not running: nothing to disconnect).
 */
export function managementCommand(
  socketPath: string,
  command: string,
  timeoutMs = 3000,
): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = createConnection(socketPath);
    let buffer = '';
    const finish = (answer: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    socket.once('error', () => finish(null));
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      // The interface greets with ">INFO:…"; the answer to our command starts with SUCCESS: or ERROR:.
      const answer = buffer.split('\n').find((l) => l.startsWith('SUCCESS:') || l.startsWith('ERROR:'));
      if (answer) finish(answer.trim());
    });
    socket.once('connect', () => socket.write(`${command}\n`));
  });
}
