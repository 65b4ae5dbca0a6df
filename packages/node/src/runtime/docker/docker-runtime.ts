/**
 * ContainerRuntime on the Docker engine API, through dockerode. Only the files of this folder know dockerode; each
 * part of the interface lives in its own file (networks, volumes, containers, image pulls, registry logins).
 */
import Docker from 'dockerode';

import type {
  ContainerHandle,
  ContainerRuntime,
  ContainerSpec,
  ContainerStats,
  ContainerState,
  ContainerSummary,
  EngineInfo,
  EnsureResult,
  ExecResult,
  ExitResult,
  ImageInfo,
  NetworkInfo,
  NetworkOptions,
  PullResult,
  RegistryCredentials,
  RuntimeLogger,
  VolumeFilter,
  VolumeInfo,
  WaitOptions,
} from '../container-runtime.js';
import { checkImageReference } from '../image-ref.js';
import * as containers from './containers.js';
import { Engine, type EngineLabel } from './engine.js';
import { pullIfNewer, type ImagePullContext } from './image-pull.js';
import * as networks from './networks.js';
import { RegistryAuth } from './registry-auth.js';
import * as volumes from './volumes.js';

export interface DockerRuntimeOptions {
  /**
   * Engine socket.
   * @default DOCKER_HOST, else /var/run/docker.sock
   */
  readonly socketPath?: string;
  /** An already configured dockerode instance (tests, remote engines). Wins over socketPath. */
  readonly docker?: Docker;
  /** Registry logins known from the start (node config `docker_registries`); not verified here, see login(). */
  readonly registries?: readonly RegistryCredentials[];
  /**
   * Time limit for asking a registry about an image (distribution inspect), in milliseconds.
   * @default 20000
   */
  readonly registryTimeoutMs?: number;
  readonly logger?: RuntimeLogger;
  /**
   * Whether the engine answers `/distribution` (a registry's digest without a pull); Podman's Docker API does not.
   * @default true
   */
  readonly distribution?: boolean;
  /** Without `distribution`: asked before a pull whether the registry can be reached at all. */
  readonly registryUnreachable?: (ref: string) => Promise<string | undefined>;
  /** How errors name the engine (an engine that speaks Docker's API, such as Podman's, names itself). */
  readonly engineLabel?: EngineLabel;
}

export class DockerRuntime implements ContainerRuntime {
  readonly #engine: Engine;
  readonly #auth: RegistryAuth;
  readonly #pulls: ImagePullContext;

  constructor(options: DockerRuntimeOptions = {}) {
    const docker =
      options.docker ??
      (options.socketPath !== undefined ? new Docker({ socketPath: options.socketPath }) : new Docker());
    this.#engine = new Engine(docker, options.logger, options.engineLabel);
    this.#auth = new RegistryAuth(options.registries);
    this.#pulls = {
      engine: this.#engine,
      auth: this.#auth,
      registryTimeoutMs: options.registryTimeoutMs ?? 20_000,
      distribution: options.distribution ?? true,
      ...(options.registryUnreachable !== undefined
        ? { registryUnreachable: options.registryUnreachable }
        : {}),
      inspectImage: (ref) => this.inspectImage(ref),
    };
  }

  async ping(): Promise<EngineInfo> {
    return this.#engine.call('ping', {}, async () => {
      const v = await this.#engine.docker.version();
      return { version: v.Version, apiVersion: v.ApiVersion, os: v.Os, arch: v.Arch };
    });
  }

  // ---------------------------------------------------------------- networks

  ensureNetwork(name: string, options: NetworkOptions): Promise<EnsureResult> {
    return networks.ensureNetwork(this.#engine, name, options);
  }

  inspectNetwork(name: string): Promise<NetworkInfo | undefined> {
    return networks.inspectNetwork(this.#engine, name);
  }

  removeNetwork(name: string): Promise<void> {
    return networks.removeNetwork(this.#engine, name);
  }

  connectContainerToNetwork(
    containerIdOrName: string,
    network: string,
    aliases?: readonly string[],
  ): Promise<void> {
    return networks.connectContainerToNetwork(this.#engine, containerIdOrName, network, aliases);
  }

  disconnectContainerFromNetwork(containerIdOrName: string, network: string): Promise<void> {
    return networks.disconnectContainerFromNetwork(this.#engine, containerIdOrName, network);
  }

  // ---------------------------------------------------------------- volumes

  ensureVolume(name: string, labels?: Readonly<Record<string, string>>): Promise<EnsureResult> {
    return volumes.ensureVolume(this.#engine, name, labels);
  }

  ensureHostVolume(
    name: string,
    hostDir: string,
    labels?: Readonly<Record<string, string>>,
  ): Promise<EnsureResult> {
    return volumes.ensureHostVolume(this.#engine, name, hostDir, labels);
  }

  removeVolume(name: string): Promise<void> {
    return volumes.removeVolume(this.#engine, name);
  }

  listVolumes(filter?: VolumeFilter): Promise<VolumeInfo[]> {
    return volumes.listVolumes(this.#engine, filter);
  }

  // ---------------------------------------------------------------- containers

  runContainer(spec: ContainerSpec): Promise<ContainerHandle> {
    return containers.runContainer(this.#engine, spec);
  }

  stats(nameOrId: string): Promise<ContainerStats | undefined> {
    return containers.stats(this.#engine, nameOrId);
  }

  waitForExit(handle: ContainerHandle, options?: WaitOptions): Promise<ExitResult> {
    return containers.waitForExit(this.#engine, handle, options);
  }

  logs(handle: ContainerHandle): Promise<string> {
    return containers.logs(this.#engine, handle);
  }

  followLogs(handle: ContainerHandle, onText: (text: string) => void, signal: AbortSignal): Promise<void> {
    return containers.followLogs(this.#engine, handle, onText, signal);
  }

  exec(nameOrId: string, cmd: readonly string[]): Promise<ExecResult> {
    return containers.exec(this.#engine, nameOrId, cmd);
  }

  kill(handle: ContainerHandle): Promise<void> {
    return containers.kill(this.#engine, handle);
  }

  async remove(handle: ContainerHandle): Promise<void> {
    await this.removeContainerIfExists(handle.id);
  }

  removeContainerIfExists(nameOrId: string): Promise<boolean> {
    return containers.removeContainerIfExists(this.#engine, nameOrId);
  }

  inspectContainer(nameOrId: string): Promise<ContainerState | undefined> {
    return containers.inspectContainer(this.#engine, nameOrId);
  }

  listContainers(labels: Readonly<Record<string, string>>): Promise<ContainerSummary[]> {
    return containers.listContainers(this.#engine, labels);
  }

  // ---------------------------------------------------------------- images

  async imageExists(ref: string): Promise<boolean> {
    return (await this.inspectImage(ref)) !== undefined;
  }

  async inspectImage(ref: string): Promise<ImageInfo | undefined> {
    checkImageReference('inspectImage', ref);
    const info = await this.#engine.maybe('inspectImage', { image: ref }, () =>
      this.#engine.docker.getImage(ref).inspect(),
    );
    if (info === undefined) return undefined;
    return {
      id: info.Id,
      repoTags: [...(info.RepoTags ?? [])],
      repoDigests: [...(info.RepoDigests ?? [])],
      created: info.Created,
      labels: { ...(info.Config?.Labels ?? {}) },
      exposedPorts: Object.keys(info.Config?.ExposedPorts ?? {}),
    };
  }

  pullIfNewer(ref: string, credentials?: RegistryCredentials): Promise<PullResult> {
    return pullIfNewer(this.#pulls, ref, credentials);
  }

  login(credentials: RegistryCredentials): Promise<void> {
    return this.#auth.login(this.#engine.docker, credentials);
  }
}
