/**
 * The CLI's view of the Docker engine: what `vserver`/`vnode` need to run, watch and clean up an instance.
 * dockerode stays inside this folder.
 */
import { PassThrough, Writable } from 'node:stream';
import Docker from 'dockerode';
import { dockerHostOptions } from '@federa/common';
import { CliError } from '../exit-codes.js';

export interface RunSpec {
  readonly name: string;
  readonly image: string;
  readonly cmd: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  /** Bind mounts `host:container[:ro]` and named volumes `volume:container`. */
  readonly binds: readonly string[];
  /** Container port → host address and port (tcp unless `protocol` says udp). */
  readonly ports?: readonly {
    container: number;
    hostIp: string;
    hostPort: number;
    protocol?: 'tcp' | 'udp';
  }[];
  readonly network?: string;
  readonly tty?: boolean;
  readonly autoRemove?: boolean;
  readonly extraHosts?: readonly string[];
  /** Extra capabilities (the VPN server needs `NET_ADMIN`). */
  readonly capAdd?: readonly string[];
  /** Host devices passed through (`/dev/net/tun`). */
  readonly devices?: readonly string[];
}

export interface ContainerInfo {
  readonly name: string;
  readonly running: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly image: string;
}

const errCode = (error: unknown): string | number | undefined =>
  (error as { statusCode?: number; code?: string } | null)?.statusCode ??
  (error as { code?: string } | null)?.code;

/** Docker engine access for the CLI. Construct with {@link connectDocker}, which checks that the engine answers. */
export class DockerEngine {
  readonly docker: Docker;
  constructor(docker: Docker) {
    this.docker = docker;
  }

  async containerInfo(name: string): Promise<ContainerInfo | undefined> {
    try {
      const c = await this.docker.getContainer(name).inspect();
      return { name, running: c.State.Running, labels: c.Config.Labels ?? {}, image: c.Config.Image };
    } catch (error) {
      if (errCode(error) === 404) return undefined;
      throw error;
    }
  }

  async isRunning(name: string): Promise<boolean> {
    return (await this.containerInfo(name))?.running ?? false;
  }

  /** Running containers carrying `label=value` (or the label at all when value is undefined). */
  async runningWithLabel(label: string, value?: string): Promise<ContainerInfo[]> {
    const list = await this.docker.listContainers({
      filters: { label: [value === undefined ? label : `${label}=${value}`] },
    });
    return list.map((c) => ({
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      running: c.State === 'running',
      labels: c.Labels ?? {},
      image: c.Image,
    }));
  }

  /** Containers carrying `label=value`, running or not. */
  async allWithLabel(label: string, value: string): Promise<ContainerInfo[]> {
    const list = await this.docker.listContainers({ all: true, filters: { label: [`${label}=${value}`] } });
    return list.map((c) => ({
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      running: c.State === 'running',
      labels: c.Labels ?? {},
      image: c.Image,
    }));
  }

  async run(spec: RunSpec): Promise<void> {
    const exposed: Record<string, object> = {};
    const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
    for (const p of spec.ports ?? []) {
      const key = `${p.container}/${p.protocol ?? 'tcp'}`;
      exposed[key] = {};
      bindings[key] = [{ HostIp: p.hostIp, HostPort: String(p.hostPort) }];
    }
    const container = await this.docker.createContainer({
      name: spec.name,
      Image: spec.image,
      Cmd: [...spec.cmd],
      Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
      Labels: { ...spec.labels },
      Tty: spec.tty ?? false,
      ExposedPorts: exposed,
      HostConfig: {
        Binds: [...spec.binds],
        PortBindings: bindings,
        AutoRemove: spec.autoRemove ?? true,
        ...(spec.network !== undefined ? { NetworkMode: spec.network } : {}),
        ...dockerHostOptions(spec),
      },
    });
    await container.start();
  }

  /** Stop with a grace period (SIGTERM, then SIGKILL). No error when it is not running or gone. */
  async stop(name: string, graceSeconds = 10): Promise<void> {
    try {
      await this.docker.getContainer(name).stop({ t: graceSeconds });
    } catch (error) {
      const code = errCode(error);
      if (code !== 304 && code !== 404) throw error;
    }
  }

  async kill(name: string): Promise<void> {
    try {
      await this.docker.getContainer(name).kill();
    } catch (error) {
      const code = errCode(error);
      if (code !== 409 && code !== 404) throw error;
    }
  }

  /** Forced removal; no error when it does not exist or is being removed already. */
  async removeContainer(name: string): Promise<void> {
    try {
      await this.docker.getContainer(name).remove({ force: true });
    } catch (error) {
      const code = errCode(error);
      if (code !== 404 && code !== 409) throw error;
    }
  }

  /** Wait until a container is gone or stopped (auto-removed containers disappear). */
  async waitGone(name: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const info = await this.containerInfo(name);
      if (info === undefined || !info.running) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /**
   * Stream the container's logs (stdout and stderr) to `out`. With `follow`, until the container stops or
   * `signal` aborts. `tail` limits the history.
   */
  async streamLogs(
    name: string,
    out: Writable,
    options: { follow: boolean; signal?: AbortSignal; tail?: number } = { follow: true },
  ): Promise<void> {
    const container = this.docker.getContainer(name);
    const info = await container.inspect();
    const base = {
      stdout: true,
      stderr: true,
      ...(options.tail !== undefined ? { tail: options.tail } : {}),
    };
    if (!options.follow) {
      const buf = await container.logs({ ...base, follow: false });
      if (info.Config.Tty) out.write(buf);
      else {
        const pass = new PassThrough();
        this.docker.modem.demuxStream(pass, out, out);
        pass.end(buf);
        await new Promise((r) => setImmediate(r));
      }
      return;
    }
    const stream = await container.logs({ ...base, follow: true });
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        options.signal?.removeEventListener('abort', finish);
        (stream as unknown as { destroy?: () => void }).destroy?.();
        resolve();
      };
      if (info.Config.Tty) stream.on('data', (chunk: Buffer) => out.write(chunk));
      else this.docker.modem.demuxStream(stream, out, out);
      stream.on('end', finish);
      stream.on('error', finish);
      options.signal?.addEventListener('abort', finish);
      if (options.signal?.aborted) finish();
    });
  }

  /** Runs a command in a running container and returns its output (stdout and stderr). */
  async exec(name: string, cmd: readonly string[]): Promise<{ exitCode: number; output: string }> {
    const container = this.docker.getContainer(name);
    const tty = (await container.inspect()).Config.Tty;
    const exec = await container.exec({ Cmd: [...cmd], AttachStdout: true, AttachStderr: true, Tty: tty });
    const stream = await exec.start({ hijack: true, stdin: false, Tty: tty });
    const chunks: Buffer[] = [];
    const sink = new PassThrough();
    sink.on('data', (c: Buffer) => chunks.push(c));
    if (tty) stream.on('data', (c: Buffer) => chunks.push(c));
    else this.docker.modem.demuxStream(stream, sink, sink);
    await new Promise<void>((resolve) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', resolve);
    });
    const info = await exec.inspect();
    return { exitCode: info.ExitCode ?? -1, output: Buffer.concat(chunks).toString('utf8') };
  }

  /** Keeps the last `max` log lines of a container in memory (to show why it stopped, even when auto-removed). */
  tail(name: string, max = 30): { lines(): string[]; stop(): void } {
    const kept: string[] = [];
    const abort = new AbortController();
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        kept.push(
          ...chunk
            .toString()
            .replace(/\x1b\[[0-9;]*m/g, '')
            .split(/\r?\n/)
            .filter((l) => l.trim() !== ''),
        );
        kept.splice(0, Math.max(0, kept.length - max));
        done();
      },
    });
    void this.streamLogs(name, sink, { follow: true, signal: abort.signal }).catch(() => undefined);
    return { lines: () => [...kept], stop: () => abort.abort() };
  }

  // --- volumes and networks ---

  async volumeNames(): Promise<string[]> {
    const res = await this.docker.listVolumes();
    return (res.Volumes ?? []).map((v) => v.Name);
  }

  async ensureVolume(name: string, labels: Record<string, string> = {}): Promise<void> {
    const existing = await this.volumeNames();
    if (!existing.includes(name)) await this.docker.createVolume({ Name: name, Labels: labels });
  }

  async removeVolume(name: string): Promise<void> {
    try {
      await this.docker.getVolume(name).remove();
    } catch (error) {
      if (errCode(error) !== 404) throw error;
    }
  }

  async ensureNetwork(name: string, labels: Record<string, string> = {}): Promise<void> {
    const list = await this.docker.listNetworks({ filters: { name: [name] } });
    if (!list.some((n) => n.Name === name))
      await this.docker.createNetwork({ Name: name, Driver: 'bridge', Labels: labels });
  }

  async removeNetwork(name: string): Promise<void> {
    try {
      const net = this.docker.getNetwork(name);
      const info = (await net.inspect()) as { Containers?: Record<string, { Name: string }> };
      for (const id of Object.keys(info.Containers ?? {})) {
        await net.disconnect({ Container: id, Force: true }).catch(() => undefined);
      }
      await net.remove();
    } catch (error) {
      if (errCode(error) !== 404) throw error;
    }
  }

  /** Address at which the host is reachable from containers on the default bridge. */
  async bridgeGateway(): Promise<string | undefined> {
    try {
      const info = (await this.docker.getNetwork('bridge').inspect()) as {
        IPAM?: { Config?: { Gateway?: string }[] };
      };
      return info.IPAM?.Config?.[0]?.Gateway;
    } catch {
      return undefined;
    }
  }
}

/** Connects to the engine (DOCKER_HOST or /var/run/docker.sock) and checks that it answers. */
export async function connectDocker(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<DockerEngine> {
  const host = env.DOCKER_HOST;
  const socketPath = host?.startsWith('unix://')
    ? host.slice('unix://'.length)
    : host
      ? undefined
      : '/var/run/docker.sock';
  const docker = socketPath !== undefined ? new Docker({ socketPath }) : new Docker();
  try {
    await docker.ping();
  } catch (error) {
    throw new CliError(
      'docker',
      `Docker does not answer at ${host ?? socketPath ?? 'its default address'} (${(error as Error).message}). ` +
        "Start the Docker engine (on this project's machines: scripts/docker-engine.sh) and try again.",
      { cause: error },
    );
  }
  return new DockerEngine(docker);
}
