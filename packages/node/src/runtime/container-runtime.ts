/**
 * What the node needs from a container engine. The Docker implementation is `docker/docker-runtime.ts`; nothing of
 * dockerode leaks through this interface, so a fake or another engine can stand in for it.
 *
 * Naming and labelling conventions (docs/docker.md) are the caller's business; the runtime only creates what it
 * is told to.
 */

/** Minimal logger of a runtime (pino's fits). */
export interface RuntimeLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface NetworkOptions {
  /** No route out of the network (Docker `--internal`). */
  readonly internal: boolean;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface NetworkInfo {
  readonly id: string;
  readonly name: string;
  readonly internal: boolean;
  /** Host side of the bridge: the address at which a process on the host is reachable from the network. */
  readonly gateway: string | undefined;
  readonly subnet: string | undefined;
  /** Names of the containers attached to the network. */
  readonly containers: readonly string[];
}

export interface EnsureResult {
  readonly name: string;
  /** true when this call created the object, false when it existed already. */
  readonly created: boolean;
}

export interface VolumeInfo {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface VolumeFilter {
  readonly prefix?: string;
  readonly suffix?: string;
  /** Every given label must be present with that value ('' = present with any value). */
  readonly labels?: Readonly<Record<string, string>>;
}

export interface MountSpec {
  /** Volume name (type 'volume') or absolute host path (type 'bind'). */
  readonly source: string;
  /** Absolute path inside the container. */
  readonly target: string;
  readonly type: 'volume' | 'bind';
  readonly readOnly?: boolean;
}

export interface ContainerSpec {
  readonly name: string;
  readonly image: string;
  readonly env: Readonly<Record<string, string>>;
  readonly mounts: readonly MountSpec[];
  /**
   * Network to attach to: a network name, `container:<name or id>` to share another container's network
   * namespace (how an algorithm joins its helper), `none`, or omitted for the engine's default bridge.
   */
  readonly network?: string;
  /** DNS aliases on `network` (only for a named network). */
  readonly networkAliases?: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  /** Command (replaces the image's CMD). */
  readonly cmd?: readonly string[];
  /** Entrypoint (replaces the image's ENTRYPOINT). */
  readonly entrypoint?: readonly string[];
  readonly workingDir?: string;
  readonly user?: string;
  /** Host name inside the container. */
  readonly hostname?: string;
  /** Extra `/etc/hosts` entries, `name:address` (e.g. `host.docker.internal:172.18.0.1`). */
  readonly extraHosts?: readonly string[];
  /** Request every GPU of the host (node config `algorithm_device_requests: {gpu: true}`). */
  readonly gpus?: boolean;
  /** Extra capabilities (`NET_ADMIN` for the VPN client and the network helpers of a VPN node). */
  readonly capAdd?: readonly string[];
  /** Host devices to pass through, e.g. `/dev/net/tun`. */
  readonly devices?: readonly string[];
  /** Kernel parameters of the container's namespaces, e.g. `net.ipv4.ip_forward: '1'`. */
  readonly sysctls?: Readonly<Record<string, string>>;
}

export interface ExecResult {
  readonly exitCode: number;
  /** stdout and stderr together. */
  readonly output: string;
}

export interface ContainerHandle {
  readonly id: string;
  readonly name: string;
}

export type ContainerStatus =
  'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';

export interface ContainerSummary extends ContainerHandle {
  readonly image: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly status: ContainerStatus;
}

export interface ContainerState extends ContainerHandle {
  readonly status: ContainerStatus;
  readonly running: boolean;
  /** Exit code once the container has stopped; undefined while it runs or before it started. */
  readonly exitCode: number | undefined;
  readonly startedAt: string | undefined;
  readonly finishedAt: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  /** The container's IPv4 address on each network it is attached to (network name → address). */
  readonly addresses: Readonly<Record<string, string>>;
}

export interface ContainerStats {
  readonly cpuSeconds: number;
  readonly memoryBytes: number;
}

export interface ExitResult {
  readonly exitCode: number;
}

export interface WaitOptions {
  /** Give up after this many milliseconds (RuntimeTimeoutError); the container keeps running. */
  readonly timeoutMs?: number;
}

export interface ImageInfo {
  readonly id: string;
  readonly repoTags: readonly string[];
  /** `repository@sha256:…` for every registry the image was pulled from or pushed to. */
  readonly repoDigests: readonly string[];
  readonly created: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `EXPOSE`d ports as declared, e.g. `8888/tcp`. */
  readonly exposedPorts: readonly string[];
}

/** Login for one registry (node config `docker_registries` item). */
export interface RegistryCredentials {
  /** Registry host (`harbor.example.org`, `127.0.0.1:5000`), with or without scheme; `docker.io` for Docker Hub. */
  readonly registry: string;
  readonly username: string;
  readonly password: string;
}

export type PullAction = 'pulled' | 'up-to-date' | 'local-fallback' | 'missing';

export interface PullResult {
  readonly action: PullAction;
  /** Set when the registry could not be asked or refused, or the pull failed. */
  readonly warning?: string;
  /** Digest the registry announced, when it answered. */
  readonly remoteDigest?: string;
  /** Local image id after the call (undefined when 'missing'). */
  readonly imageId?: string;
}

export interface EngineInfo {
  readonly version: string;
  readonly apiVersion: string;
  readonly os: string;
  readonly arch: string;
}

export interface ContainerRuntime {
  /** Engine answers? Throws RuntimeUnavailableError with a readable message otherwise. */
  ping(): Promise<EngineInfo>;

  // --- networks ---
  /** Create a bridge network unless one of that name exists (an existing one is returned as is). */
  ensureNetwork(name: string, options: NetworkOptions): Promise<EnsureResult>;
  inspectNetwork(name: string): Promise<NetworkInfo | undefined>;
  /** Disconnect every container from the network, then remove it. No error when it does not exist. */
  removeNetwork(name: string): Promise<void>;
  /** Attach a (running or created) container; no error when it is attached already. */
  connectContainerToNetwork(
    containerIdOrName: string,
    network: string,
    aliases?: readonly string[],
  ): Promise<void>;
  /** Detach; no error when it was not attached or either side does not exist. */
  disconnectContainerFromNetwork(containerIdOrName: string, network: string): Promise<void>;

  // --- volumes ---
  ensureVolume(name: string, labels?: Readonly<Record<string, string>>): Promise<EnsureResult>;
  /**
   * A volume that shows the host directory `hostDir` (an absolute path that exists) to containers: how the node on
   * the host shares run files with algorithms. A volume of that name backed by anything else is replaced; throws
   * ContainerRuntimeError, saying how to remove it, when it cannot be (a container uses it).
   */
  ensureHostVolume(
    name: string,
    hostDir: string,
    labels?: Readonly<Record<string, string>>,
  ): Promise<EnsureResult>;
  /** No error when it does not exist. Throws when a container still uses it. */
  removeVolume(name: string): Promise<void>;
  listVolumes(filter?: VolumeFilter): Promise<VolumeInfo[]>;

  // --- containers ---
  /** Create and start a container. A container of the same name must not exist (see removeContainerIfExists). */
  runContainer(spec: ContainerSpec): Promise<ContainerHandle>;
  /** Wait until the container has stopped (returns at once when it has already). */
  waitForExit(handle: ContainerHandle, options?: WaitOptions): Promise<ExitResult>;
  /**
   * stdout and stderr, demultiplexed, in the order the engine recorded them (the order between the two streams
   * is best effort: the engine reads them separately).
   */
  logs(handle: ContainerHandle): Promise<string>;
  /**
   * Follows stdout and stderr from the container's start as they are written (docs/run-logs.md): `onText` gets each
   * piece. Resolves when the container's streams end, or at once when `signal` aborts.
   */
  followLogs(handle: ContainerHandle, onText: (text: string) => void, signal: AbortSignal): Promise<void>;
  /** SIGKILL; no error when the container is not running or does not exist. */
  kill(handle: ContainerHandle): Promise<void>;
  /** Remove (forced: a running container is killed first); no error when it does not exist. */
  remove(handle: ContainerHandle): Promise<void>;
  /** Forced removal by name or id; returns whether a container was removed. */
  removeContainerIfExists(nameOrId: string): Promise<boolean>;
  /** Runs a command (no shell) in a running container and waits for it. */
  exec(nameOrId: string, cmd: readonly string[]): Promise<ExecResult>;
  /** Current state, or undefined when no such container exists. */
  inspectContainer(nameOrId: string): Promise<ContainerState | undefined>;
  /**
   * CPU time used so far (seconds) and memory in use now (bytes) of a running container, read once (no stream);
   * undefined when it is not running. Optional: a runtime without it shows no container figures in the metrics.
   */
  stats?(nameOrId: string): Promise<ContainerStats | undefined>;
  /** Containers (running or not) that carry every given label (value '' = label present with any value). */
  listContainers(labels: Readonly<Record<string, string>>): Promise<ContainerSummary[]>;

  // --- images ---
  imageExists(ref: string): Promise<boolean>;
  inspectImage(ref: string): Promise<ImageInfo | undefined>;
  /**
   * Pull `ref` when the registry holds a different (newer) image than the local one, or there is no local one.
   * Credentials: the given ones, else those registered with `login` for the registry host of `ref`.
   * Never throws for registry problems: 'local-fallback' (with a warning) keeps the local image when the registry
   * cannot be asked or the pull fails; 'missing' when neither a local nor a remote image exists.
   */
  pullIfNewer(ref: string, credentials?: RegistryCredentials): Promise<PullResult>;
  /**
   * Check credentials against the registry (engine `/auth`) and remember them for its host. Throws RegistryError
   * when the registry refuses them or cannot be reached (the credentials are remembered anyway).
   */
  login(credentials: RegistryCredentials): Promise<void>;
}
