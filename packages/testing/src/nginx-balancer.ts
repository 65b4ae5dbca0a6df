import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './ports.js';

/** The nginx of the machine (Debian: `apt-get install nginx-light`). */
export const NGINX_BIN = process.env.FEDERA_NGINX ?? '/usr/sbin/nginx';

export interface BalancerOptions {
  /** Ports of the instances on 127.0.0.1. */
  upstreams: number[];
  /** A working directory of the balancer (configuration, logs, temporary files). */
  dir: string;
  /**
   * `round-robin` (socket.io clients must then use the WebSocket transport only) or `ip_hash` (sticky per client
   * address, which socket.io's HTTP long-polling needs).
   * @default 'round-robin'
   */
  balancing?: 'round-robin' | 'ip_hash';
  /**
   * nginx's connections at once, client and upstream sides together (each proxied request holds two): a benchmark
   * with hundreds of users and node sockets needs more than the default.
   * @default 1024
   */
  workerConnections?: number;
}

export interface Balancer {
  port: number;
  url: string;
  /** Stops nginx (SIGTERM, then SIGKILL after 3 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * The nginx configuration of a load balancer in front of several Federa instances: HTTP/1.1 to the upstreams,
 * the WebSocket upgrade passed on, no buffering, long read timeouts for sockets. The same blocks as in
 * docs/scaling.md.
 */
export function balancerConfig(port: number, options: BalancerOptions): string {
  const { dir } = options;
  const connections = options.workerConnections ?? 1024;
  return `daemon off;
master_process on;
worker_processes 1;
worker_rlimit_nofile ${connections * 2};
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections ${connections}; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'tmp-body')};
  proxy_temp_path ${join(dir, 'tmp-proxy')};
  fastcgi_temp_path ${join(dir, 'tmp-fastcgi')};
  uwsgi_temp_path ${join(dir, 'tmp-uwsgi')};
  scgi_temp_path ${join(dir, 'tmp-scgi')};
  client_max_body_size 64m;

  map $http_upgrade $connection_upgrade {
    default upgrade;
    ''      '';
  }

  upstream federa {
    ${options.balancing === 'ip_hash' ? 'ip_hash;' : ''}
${options.upstreams.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`).join('\n')}
    keepalive 32;
  }

  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://federa;
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_buffering off;
      proxy_read_timeout 120s;
      proxy_next_upstream error timeout;
    }
  }
}
`;
}

const accepting = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

/** Runs nginx in the foreground as a child process, as a load balancer in front of `upstreams`. */
export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  mkdirSync(options.dir, { recursive: true });
  const port = await freePort();
  const conf = join(options.dir, 'nginx.conf');
  writeFileSync(conf, balancerConfig(port, options));
  const child: ChildProcess = spawn(NGINX_BIN, ['-e', 'stderr', '-p', options.dir, '-c', conf], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = Date.now() + 10_000;
  while (!(await accepting(port))) {
    if (child.exitCode !== null || Date.now() > end) {
      child.kill('SIGKILL');
      let log = '';
      try {
        log = readFileSync(join(options.dir, 'error.log'), 'utf8');
      } catch {
        // no log yet
      }
      throw new Error(`nginx did not start: ${stderr}${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
