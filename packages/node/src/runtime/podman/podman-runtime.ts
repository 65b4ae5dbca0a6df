/**
 * ContainerRuntime on Podman, through its Docker-compatible API socket (docs/deploy-node.md#rootless-podman). The
 * container, network, volume and image calls are the Docker runtime's: Podman answers them the same way, and the
 * conformance suite (conformance.test.ts) holds both to one behaviour. What differs is how the engine is found and
 * checked: the socket of the user's own API service, a Podman new enough, and (asked by default) one that runs
 * without root.
 */
import { access } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import Docker from 'dockerode';

import type {
  ContainerHandle,
  EngineInfo,
  ExitResult,
  RegistryCredentials,
  RuntimeLogger,
  WaitOptions,
} from '../container-runtime.js';
import { DockerRuntime } from '../docker/docker-runtime.js';
import { Engine } from '../docker/engine.js';
import { ContainerRuntimeError, RuntimeTimeoutError, RuntimeUnavailableError } from '../errors.js';
import { missingRootlessFeatures, type HostFeature } from './host-check.js';
import { registryUnreachable } from './registry-probe.js';
import { libpodInfo, removeWithDependents, type LibpodInfo } from './libpod-info.js';
import { exitDirectory, waitStopped, watchExitFile } from './libpod-wait.js';

/** Oldest Podman whose Docker-compatible API has what the node needs (netavark internal networks, API 1.40+). */
export const MIN_PODMAN_VERSION = '4.0.0';

export interface PodmanRuntimeOptions {
  /**
   * The API socket.
   * @default $XDG_RUNTIME_DIR/podman/podman.sock, else /run/user/<uid>/podman/podman.sock
   */
  readonly socketPath?: string;
  /**
   * Refuse a Podman that runs as root.
   * @default true
   */
  readonly rootless?: boolean;
  readonly registries?: readonly RegistryCredentials[];
  readonly registryTimeoutMs?: number;
  readonly logger?: RuntimeLogger;
}

/** Where a user's Podman API service listens (`systemctl --user enable --now podman.socket` puts it there). */
export function defaultPodmanSocket(env: NodeJS.ProcessEnv = process.env): string {
  const runtimeDir = env['XDG_RUNTIME_DIR'] ?? `/run/user/${process.getuid?.() ?? 0}`;
  return join(runtimeDir, 'podman', 'podman.sock');
}

/** `a.b.c` compared numerically; a suffix (`-rc1`, `-dev`) is ignored. */
export function versionAtLeast(version: string, minimum: string): boolean {
  const parts = (v: string): number[] =>
    v
      .split(/[.-]/)
      .slice(0, 3)
      .map((p) => Number.parseInt(p, 10) || 0);
  const [a, b] = [parts(version), parts(minimum)];
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

async function onPath(binary: string): Promise<boolean> {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    try {
      await access(join(dir, binary));
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

const START_SERVICE = (socket: string): string =>
  `start the API service as the node's user: 'systemctl --user enable --now podman.socket', or 'podman system service --time=0 unix://${socket} &'`;

export class PodmanRuntime extends DockerRuntime {
  readonly socketPath: string;
  readonly #docker: Docker;
  readonly #engine: Engine;
  readonly #rootless: boolean;
  #info: LibpodInfo | undefined;
  #exitDir: Promise<string | undefined> | undefined;

  constructor(options: PodmanRuntimeOptions = {}) {
    const socketPath = options.socketPath ?? defaultPodmanSocket();
    const docker = new Docker({ socketPath });
    const engineLabel = { name: `Podman (${socketPath})`, hint: START_SERVICE(socketPath) };
    super({
      docker,
      engineLabel,
      distribution: false,
      registryUnreachable: (ref) =>
        registryUnreachable(ref, Math.min(options.registryTimeoutMs ?? 20_000, 5_000)),
      ...(options.registries !== undefined ? { registries: options.registries } : {}),
      ...(options.registryTimeoutMs !== undefined ? { registryTimeoutMs: options.registryTimeoutMs } : {}),
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
    });
    this.socketPath = socketPath;
    this.#docker = docker;
    this.#engine = new Engine(docker, options.logger, engineLabel);
    this.#rootless = options.rootless ?? true;
  }

  /** Podman's own report of its host (after a successful ping). */
  get info(): LibpodInfo | undefined {
    return this.#info;
  }

  /**
   * Podman answers, is new enough, and runs without root when that was asked. Each refusal says what to do.
   */
  override async ping(): Promise<EngineInfo> {
    let base: EngineInfo;
    try {
      base = await super.ping();
    } catch (err) {
      if (err instanceof RuntimeUnavailableError && !(await onPath('podman'))) {
        throw new RuntimeUnavailableError(
          'ping',
          `Podman is not installed: install it ('apt-get install podman uidmap slirp4netns fuse-overlayfs'), then ${START_SERVICE(this.socketPath)}`,
          { context: { socket: this.socketPath }, cause: err },
        );
      }
      throw err;
    }
    const info = await libpodInfo(this.#docker);
    if (info === undefined) {
      throw new RuntimeUnavailableError(
        'ping',
        `the socket ${this.socketPath} answers as Docker ${base.version}, not as Podman: point the node at Podman's socket or choose the runtime docker`,
        { context: { socket: this.socketPath } },
      );
    }
    if (!versionAtLeast(info.version, MIN_PODMAN_VERSION)) {
      throw new RuntimeUnavailableError(
        'ping',
        `Podman ${info.version} is too old: the node needs Podman ${MIN_PODMAN_VERSION} or newer (Debian 12 ships 4.3)`,
        { context: { socket: this.socketPath, version: info.version } },
      );
    }
    if (this.#rootless && !info.rootless) {
      throw new RuntimeUnavailableError(
        'ping',
        `Podman at ${this.socketPath} runs as root, but rootless Podman was asked: run its API service as an unprivileged user (${START_SERVICE(defaultPodmanSocket({}))}) and point the node at that user's socket`,
        { context: { socket: this.socketPath } },
      );
    }
    this.#info = info;
    return { ...base, version: info.version };
  }

  /**
   * What this host lacks for rootless Podman, for the user this process runs as (after a ping, the cgroup limits
   * too). The node logs each at start.
   */
  missingFeatures(): Promise<HostFeature[]> {
    const { username, uid } = userInfo();
    const info = this.#info;
    return missingRootlessFeatures({
      user: { name: username, uid },
      ...(info !== undefined
        ? {
            cgroup: { version: info.cgroupVersion, controllers: info.cgroupControllers },
            engine: { storageDriver: info.storageDriver, networkBackend: info.networkBackend },
          }
        : {}),
    });
  }

  /**
   * Podman refuses to remove a container whose network namespace another one joined (a helper and its algorithm),
   * even when both have stopped; Docker removes it. Podman's own API removes the dependent containers with it.
   */
  override async removeContainerIfExists(nameOrId: string): Promise<boolean> {
    try {
      return await super.removeContainerIfExists(nameOrId);
    } catch (err) {
      if (!(err instanceof ContainerRuntimeError) || !/dependent containers/.test(err.message)) throw err;
      await removeWithDependents(this.#docker, nameOrId);
      return true;
    }
  }

  /**
   * Through Podman's own wait (libpod-wait.ts), its Docker-compatible one keeping a core busy and answering late;
   * raced with conmon's exit file where this process can read it, which tells the exit first.
   */
  override async waitForExit(handle: ContainerHandle, options: WaitOptions = {}): Promise<ExitResult> {
    const context = { container: handle.name, id: handle.id };
    const ms = options.timeoutMs;
    const timeout = ms === undefined ? undefined : AbortSignal.timeout(ms);
    const finished = new AbortController();
    const signal = timeout ? AbortSignal.any([timeout, finished.signal]) : finished.signal;
    this.#exitDir ??= exitDirectory(this.socketPath);
    const exitDir = await this.#exitDir;
    try {
      const exitCode = await Promise.race([
        this.#engine.call('waitForExit', context, () => waitStopped(this.#docker, handle.id, signal)),
        ...(exitDir !== undefined ? [watchExitFile(exitDir, handle.id, signal)] : []),
      ]);
      return { exitCode };
    } catch (err) {
      if (timeout?.aborted)
        throw new RuntimeTimeoutError('waitForExit', `still running after ${ms} ms`, { context, cause: err });
      throw err;
    } finally {
      finished.abort();
    }
  }
}
