/**
 * The Podman side of `task-roundtrip --runtime podman`: a node run as the unprivileged user of rootless Podman
 * (scripts/podman-rootless.sh), in a process of its own (`vnode-local start`), as a node admin runs it, with the
 * bench's image copied into that user's Podman.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const USER = process.env.FEDERA_PODMAN_USER ?? 'federa-podman';

export interface PodmanNode {
  /** The step marks (`steps_ms`) of every run the node finished so far, read from its log. */
  steps(): Record<string, number>[];
  /** Stops the node (SIGTERM, waits), removes its image copy and its folder. */
  stop(): Promise<void>;
}

const id = (flag: string): number => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());

/** Starts the node and resolves once it says it is ready (at most 120 s; a 4096-bit key is made first). */
export async function startPodmanNode(o: {
  serverPort: number;
  apiKey: string;
  csv: string;
  name: string;
  image: string;
}): Promise<PodmanNode> {
  execFileSync('bash', [join(ROOT, 'scripts/podman-rootless.sh')], {
    env: { ...process.env, FEDERA_PODMAN_IMAGES: o.image },
    stdio: 'inherit',
  });
  const [uid, gid] = [id('-u'), id('-g')];
  const socket = `/run/user/${uid}/podman/podman.sock`;
  const dir = mkdtempSync(join(tmpdir(), `podman-bench-${o.name}-`));
  copyFileSync(o.csv, join(dir, 'data.csv'));
  const configFile = join(dir, `${o.name}.yaml`);
  writeFileSync(
    configFile,
    [
      'application:',
      `  api_key: ${o.apiKey}`,
      '  server_url: http://127.0.0.1',
      `  port: ${o.serverPort}`,
      '  api_path: /api',
      `  databases: [{label: default, uri: ${join(dir, 'data.csv')}, type: csv}]`,
      '  encryption: {enabled: true}',
      `  directories: {data: ${join(dir, 'data')}, log: ${join(dir, 'log')}}`,
      '  proxy_port: 0',
      '  container_runtime: podman',
      `  podman_socket: ${socket}`,
      '',
    ].join('\n'),
  );
  execFileSync('chown', ['-R', `${uid}:${gid}`, dir]);
  const logFile = join(dir, 'node.log');
  const child = spawn(
    'runuser',
    [
      '-u',
      USER,
      '--',
      'env',
      `XDG_RUNTIME_DIR=/run/user/${uid}`,
      process.execPath,
      join(ROOT, 'packages/node/dist/bin/vnode-local.js'),
      'start',
      '-c',
      configFile,
    ],
    { stdio: ['ignore', openSync(logFile, 'a'), openSync(logFile, 'a')] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let waited = 0; !readFileSync(logFile, 'utf8').includes('"event":"node.ready"'); waited += 200) {
    if (child.exitCode !== null || waited > 120_000)
      throw new Error(`the Podman node did not start:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    steps: () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"event":"run.finished"'))
        .map((line) => (JSON.parse(line) as { steps_ms?: Record<string, number> }).steps_ms ?? {}),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      execFileSync(
        'runuser',
        [
          '-u',
          USER,
          '--',
          'env',
          `XDG_RUNTIME_DIR=/run/user/${uid}`,
          'podman',
          'rmi',
          '-f',
          `localhost/${o.image}`,
          `docker.io/${o.image}`,
        ],
        {
          stdio: 'ignore',
        },
      );
      // The node leaves its network and volumes for its next start; the bench's are removed.
      const podman = (...args: string[]) =>
        execFileSync(
          'runuser',
          ['-u', USER, '--', 'env', `XDG_RUNTIME_DIR=/run/user/${uid}`, 'podman', ...args],
          {
            encoding: 'utf8',
          },
        );
      podman('network', 'rm', '-f', `federa-${o.name}-net`);
      const volumes = podman('volume', 'ls', '-q')
        .split('\n')
        .filter((v) => v.startsWith(`federa-${o.name}-`));
      if (volumes.length > 0) podman('volume', 'rm', '-f', ...volumes);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
