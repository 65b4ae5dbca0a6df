/**
 * ContainerRuntime on the Docker engine API, through dockerode. Only this file knows dockerode.
 */
import { PassThrough, Writable } from 'node:stream';
import Docker from 'dockerode';
import { imageReferenceProblem } from '@federa/common';
import type {
  ContainerHandle,
  ContainerRuntime,
  ContainerSpec,
  ExecResult,
  ContainerState,
  ContainerStatus,
  ContainerSummary,
  EngineInfo,
  EnsureResult,
  ExitResult,
  ImageInfo,
  NetworkInfo,
  NetworkOptions,
  PullResult,
  RegistryCredentials,
  VolumeFilter,
  VolumeInfo,
  WaitOptions,
} from './container-runtime.js';
import {
  ContainerRuntimeError,
  ImageUnavailableError,
  InvalidReferenceError,
  RegistryError,
  RuntimeNotFoundError,
  RuntimeTimeoutError,
  RuntimeUnavailableError,
  engineMessage,
  engineStatusCode,
  socketErrorCode,
  type RuntimeErrorContext,
} from './errors.js';

/** Minimal logger (pino's fits). */
export interface RuntimeLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface DockerRuntimeOptions {
  /** Engine socket; default: DOCKER_HOST, else /var/run/docker.sock. */
  readonly socketPath?: string;
  /** An already configured dockerode instance (tests, remote engines). Wins over socketPath. */
  readonly docker?: Docker;
  /** Registry logins known from the start (node config `docker_registries`); not verified here, see login(). */
  readonly registries?: readonly RegistryCredentials[];
  /** Time limit for asking a registry about an image (distribution inspect). Default 20 s. */
  readonly registryTimeoutMs?: number;
  readonly logger?: RuntimeLogger;
}

const SOCKET_DOWN_CODES = new Set(['ENOENT', 'ECONNREFUSED', 'EACCES', 'ECONNRESET', 'EPIPE']);
const DOCKER_HUB = 'docker.io';

/** Parsed image reference: registry host, repository path (Docker Hub official images get `library/`). */
export interface ImageRef {
  readonly registry: string;
  readonly repository: string;
  readonly tag: string | undefined;
  readonly digest: string | undefined;
}

export function parseImageRef(ref: string): ImageRef {
  let rest = ref.trim();
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const slash = rest.indexOf('/');
  const first = slash >= 0 ? rest.slice(0, slash) : '';
  let registry = DOCKER_HUB;
  let repository = rest;
  if (slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    registry = normalizeRegistry(first);
    repository = rest.slice(slash + 1);
  }
  if (registry === DOCKER_HUB && !repository.includes('/')) repository = `library/${repository}`;
  return { registry, repository, tag, digest };
}

/** `https://Harbor.example.org/` → `harbor.example.org`; Docker Hub's aliases → `docker.io`. */
export function normalizeRegistry(registry: string): string {
  let host = registry
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '');
  host = host.replace(/\/.*$/, '');
  if (
    host === '' ||
    host === 'index.docker.io' ||
    host === 'registry-1.docker.io' ||
    host === 'registry.hub.docker.com'
  ) {
    return DOCKER_HUB;
  }
  return host;
}

function sameRepository(a: ImageRef, b: ImageRef): boolean {
  return a.registry === b.registry && a.repository === b.repository;
}

/**
 * Refuses a reference the engine cannot parse before it is put into a request path: the engine answers some of
 * them with a redirect that the Docker client follows to a host named after the reference, and that failure
 * escapes every promise (docs/security.md, "The node survives any task").
 */
function checkReference(operation: string, ref: string): void {
  const problem = imageReferenceProblem(ref);
  if (problem)
    throw new InvalidReferenceError(
      operation,
      `the image reference ${JSON.stringify(ref).slice(0, 80)} ${problem}`,
      {
        context: { image: ref.slice(0, 80) },
      },
    );
}

function isSocketDown(err: unknown): boolean {
  const code = socketErrorCode(err);
  return code !== undefined && SOCKET_DOWN_CODES.has(code);
}

function toStatus(value: string | undefined): ContainerStatus {
  switch (value) {
    case 'created':
    case 'running':
    case 'paused':
    case 'restarting':
    case 'removing':
    case 'exited':
    case 'dead':
      return value;
    default:
      return 'dead';
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Read a progress stream (pull/push) to its end; resolves with the first error message the engine reported. */
async function drainProgress(stream: NodeJS.ReadableStream): Promise<string | undefined> {
  let text = '';
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (chunk: Buffer | string) => {
      text += chunk.toString();
    });
    stream.on('end', () => resolve());
    stream.on('error', reject);
  });
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const event = JSON.parse(line) as { error?: unknown; errorDetail?: { message?: unknown } };
      if (typeof event.error === 'string') return event.error;
      if (typeof event.errorDetail?.message === 'string') return event.errorDetail.message;
    } catch {
      // not JSON: ignore
    }
  }
  return undefined;
}

export class DockerRuntime implements ContainerRuntime {
  readonly #docker: Docker;
  readonly #credentials = new Map<string, RegistryCredentials>();
  readonly #registryTimeoutMs: number;
  readonly #logger: RuntimeLogger | undefined;

  constructor(options: DockerRuntimeOptions = {}) {
    this.#docker =
      options.docker ??
      (options.socketPath !== undefined ? new Docker({ socketPath: options.socketPath }) : new Docker());
    this.#registryTimeoutMs = options.registryTimeoutMs ?? 20_000;
    this.#logger = options.logger;
    for (const c of options.registries ?? []) this.#credentials.set(normalizeRegistry(c.registry), c);
  }

  /** Run an engine call; translate "engine not reachable" and unexpected failures into typed errors. */
  async #call<T>(operation: string, context: RuntimeErrorContext, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ContainerRuntimeError) throw err;
      if (isSocketDown(err)) {
        throw new RuntimeUnavailableError(
          operation,
          `the Docker engine does not answer (${socketErrorCode(err)}); is dockerd running? (scripts/docker-engine.sh)`,
          { context, cause: err },
        );
      }
      const status = engineStatusCode(err);
      if (status === 404)
        throw new RuntimeNotFoundError(operation, engineMessage(err), { context, cause: err });
      throw new ContainerRuntimeError(operation, engineMessage(err), { context, cause: err });
    }
  }

  /** Like #call, but "not found" (404) gives `undefined`. */
  async #maybe<T>(
    operation: string,
    context: RuntimeErrorContext,
    fn: () => Promise<T>,
  ): Promise<T | undefined> {
    try {
      return await this.#call(operation, context, fn);
    } catch (err) {
      if (err instanceof RuntimeNotFoundError) return undefined;
      throw err;
    }
  }

  async ping(): Promise<EngineInfo> {
    return this.#call('ping', {}, async () => {
      const v = await this.#docker.version();
      return { version: v.Version, apiVersion: v.ApiVersion, os: v.Os, arch: v.Arch };
    });
  }

  // ---------------------------------------------------------------- networks

  async ensureNetwork(name: string, options: NetworkOptions): Promise<EnsureResult> {
    const existing = await this.inspectNetwork(name);
    if (existing !== undefined) {
      if (existing.internal !== options.internal) {
        this.#logger?.warn(
          { network: name, internal: existing.internal, wanted: options.internal },
          'network exists with another "internal" setting; kept as is',
        );
      }
      return { name, created: false };
    }
    return this.#call('ensureNetwork', { network: name }, async () => {
      try {
        await this.#docker.createNetwork({
          Name: name,
          Driver: 'bridge',
          Internal: options.internal,
          Attachable: true,
          CheckDuplicate: true,
          Labels: { ...(options.labels ?? {}) },
        });
        return { name, created: true };
      } catch (err) {
        // Created concurrently by someone else: fine.
        if (engineStatusCode(err) === 409 && (await this.inspectNetwork(name)) !== undefined)
          return { name, created: false };
        throw err;
      }
    });
  }

  async inspectNetwork(name: string): Promise<NetworkInfo | undefined> {
    const info = await this.#maybe(
      'inspectNetwork',
      { network: name },
      async () => (await this.#docker.getNetwork(name).inspect()) as Docker.NetworkInspectInfo,
    );
    // Inspect also matches id prefixes: only an exact name (or full id) counts.
    if (info === undefined || (info.Name !== name && info.Id !== name)) return undefined;
    const ipam = info.IPAM?.Config?.[0];
    return {
      id: info.Id,
      name: info.Name,
      internal: info.Internal,
      gateway: ipam?.Gateway,
      subnet: ipam?.Subnet,
      containers: Object.values(info.Containers ?? {}).map((c) => c.Name),
    };
  }

  async removeNetwork(name: string): Promise<void> {
    const info = await this.inspectNetwork(name);
    if (info === undefined) return;
    const network = this.#docker.getNetwork(info.id);
    for (const container of info.containers) {
      await this.#maybe('removeNetwork', { network: name, container }, () =>
        network.disconnect({ Container: container, Force: true }),
      );
    }
    await this.#maybe('removeNetwork', { network: name }, () => network.remove());
  }

  async connectContainerToNetwork(
    containerIdOrName: string,
    network: string,
    aliases: readonly string[] = [],
  ): Promise<void> {
    const context = { container: containerIdOrName, network };
    const info = await this.#call('connectContainerToNetwork', context, () =>
      this.#docker.getContainer(containerIdOrName).inspect(),
    );
    if (info.NetworkSettings.Networks[network] !== undefined) return;
    await this.#call('connectContainerToNetwork', context, async () => {
      try {
        await this.#docker
          .getNetwork(network)
          .connect({ Container: containerIdOrName, EndpointConfig: { Aliases: [...aliases] } });
      } catch (err) {
        // "endpoint ... already exists": attached concurrently.
        if (engineStatusCode(err) === 403 && /already exists/.test(engineMessage(err))) return;
        throw err;
      }
    });
  }

  async disconnectContainerFromNetwork(containerIdOrName: string, network: string): Promise<void> {
    try {
      await this.#call('disconnectContainerFromNetwork', { container: containerIdOrName, network }, () =>
        this.#docker.getNetwork(network).disconnect({ Container: containerIdOrName, Force: true }),
      );
    } catch (err) {
      if (err instanceof RuntimeNotFoundError) return;
      // "container ... is not connected to network ..."
      if (err instanceof ContainerRuntimeError && /not connected/.test(err.message)) return;
      throw err;
    }
  }

  // ---------------------------------------------------------------- volumes

  async ensureVolume(name: string, labels: Readonly<Record<string, string>> = {}): Promise<EnsureResult> {
    const existing = await this.#maybe('ensureVolume', { volume: name }, () =>
      this.#docker.getVolume(name).inspect(),
    );
    if (existing !== undefined) return { name, created: false };
    await this.#call('ensureVolume', { volume: name }, () =>
      this.#docker.createVolume({ Name: name, Driver: 'local', Labels: { ...labels } }),
    );
    return { name, created: true };
  }

  async removeVolume(name: string): Promise<void> {
    await this.#maybe('removeVolume', { volume: name }, () => this.#docker.getVolume(name).remove());
  }

  async listVolumes(filter: VolumeFilter = {}): Promise<VolumeInfo[]> {
    const filters: Record<string, string[]> = {};
    if (filter.labels !== undefined && Object.keys(filter.labels).length > 0) {
      filters['label'] = Object.entries(filter.labels).map(([k, v]) => (v === '' ? k : `${k}=${v}`));
    }
    const res = await this.#call('listVolumes', {}, () =>
      this.#docker.listVolumes(Object.keys(filters).length > 0 ? { filters: JSON.stringify(filters) } : {}),
    );
    return (res.Volumes ?? [])
      .filter(
        (v) =>
          (filter.prefix === undefined || v.Name.startsWith(filter.prefix)) &&
          (filter.suffix === undefined || v.Name.endsWith(filter.suffix)),
      )
      .map((v) => ({ name: v.Name, labels: { ...(v.Labels ?? {}) } }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  // ---------------------------------------------------------------- containers

  async runContainer(spec: ContainerSpec): Promise<ContainerHandle> {
    checkReference('runContainer', spec.image);
    const context = { container: spec.name, image: spec.image };
    const network = spec.network;
    const namedNetwork =
      network !== undefined &&
      network !== 'none' &&
      network !== 'host' &&
      network !== 'bridge' &&
      !network.startsWith('container:');
    const options: Docker.ContainerCreateOptions = {
      name: spec.name,
      Image: spec.image,
      Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
      Labels: { ...spec.labels },
      ...(spec.cmd !== undefined ? { Cmd: [...spec.cmd] } : {}),
      ...(spec.entrypoint !== undefined ? { Entrypoint: [...spec.entrypoint] } : {}),
      ...(spec.workingDir !== undefined ? { WorkingDir: spec.workingDir } : {}),
      ...(spec.user !== undefined ? { User: spec.user } : {}),
      ...(spec.hostname !== undefined ? { Hostname: spec.hostname } : {}),
      Tty: false,
      AttachStdout: false,
      AttachStderr: false,
      HostConfig: {
        Mounts: spec.mounts.map((m) => ({
          Type: m.type,
          Source: m.source,
          Target: m.target,
          ReadOnly: m.readOnly ?? false,
        })),
        ...(network !== undefined ? { NetworkMode: network } : {}),
        ...(spec.extraHosts !== undefined ? { ExtraHosts: [...spec.extraHosts] } : {}),
        ...(spec.gpus === true
          ? { DeviceRequests: [{ Driver: '', Count: -1, Capabilities: [['gpu']] }] }
          : {}),
        ...(spec.capAdd !== undefined ? { CapAdd: [...spec.capAdd] } : {}),
        ...(spec.devices !== undefined
          ? {
              Devices: spec.devices.map((d) => ({
                PathOnHost: d,
                PathInContainer: d,
                CgroupPermissions: 'rwm',
              })),
            }
          : {}),
        ...(spec.sysctls !== undefined ? { Sysctls: { ...spec.sysctls } } : {}),
      },
      ...(namedNetwork
        ? {
            NetworkingConfig: {
              EndpointsConfig: { [network]: { Aliases: [...(spec.networkAliases ?? [])] } },
            },
          }
        : {}),
    };
    const container = await this.#call('runContainer', context, async () => {
      try {
        return await this.#docker.createContainer(options);
      } catch (err) {
        const status = engineStatusCode(err);
        const message = engineMessage(err);
        if (status === 404 && /image/i.test(message)) {
          throw new ImageUnavailableError(
            'runContainer',
            `image ${spec.image} is not available locally (${message})`,
            {
              context,
              cause: err,
            },
          );
        }
        if (status === 409) {
          throw new ContainerRuntimeError(
            'runContainer',
            `a container named ${spec.name} exists already (${message})`,
            {
              context,
              cause: err,
            },
          );
        }
        throw err;
      }
    });
    try {
      await this.#call('runContainer', context, () => container.start());
    } catch (err) {
      await container.remove({ force: true }).catch(() => undefined);
      throw err;
    }
    this.#logger?.debug({ container: spec.name, id: container.id, image: spec.image }, 'container started');
    return { id: container.id, name: spec.name };
  }

  async waitForExit(handle: ContainerHandle, options: WaitOptions = {}): Promise<ExitResult> {
    const context = { container: handle.name, id: handle.id };
    const wait = this.#call('waitForExit', context, async () => {
      const res = (await this.#docker.getContainer(handle.id).wait()) as { StatusCode: number };
      return { exitCode: res.StatusCode };
    });
    if (options.timeoutMs === undefined) return wait;
    const ms = options.timeoutMs;
    return withTimeout(
      wait,
      ms,
      () => new RuntimeTimeoutError('waitForExit', `still running after ${ms} ms`, { context }),
    );
  }

  async logs(handle: ContainerHandle): Promise<string> {
    const raw = await this.#call('logs', { container: handle.name, id: handle.id }, () =>
      this.#docker.getContainer(handle.id).logs({ stdout: true, stderr: true, follow: false }),
    );
    // Without a TTY the engine multiplexes stdout and stderr in frames: demultiplex them into one sink, in order.
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(Buffer.from(chunk));
        callback();
      },
    });
    const source = new PassThrough();
    const ended = new Promise<void>((resolve, reject) => {
      source.on('end', resolve);
      source.on('error', reject);
    });
    this.#docker.modem.demuxStream(source, sink, sink);
    source.end(Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw)));
    source.resume();
    await ended;
    return Buffer.concat(chunks).toString('utf8');
  }

  async exec(nameOrId: string, cmd: readonly string[]): Promise<ExecResult> {
    const context = { container: nameOrId };
    return this.#call('exec', context, async () => {
      const exec = await this.#docker
        .getContainer(nameOrId)
        .exec({ Cmd: [...cmd], AttachStdout: true, AttachStderr: true, Tty: false });
      const stream = await exec.start({ hijack: true, stdin: false });
      const chunks: Buffer[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(Buffer.from(chunk));
          callback();
        },
      });
      this.#docker.modem.demuxStream(stream, sink, sink);
      await new Promise<void>((resolve, reject) => {
        stream.on('end', resolve);
        stream.on('close', resolve);
        stream.on('error', reject);
      });
      const inspected = await exec.inspect();
      return { exitCode: inspected.ExitCode ?? -1, output: Buffer.concat(chunks).toString('utf8') };
    });
  }

  async kill(handle: ContainerHandle): Promise<void> {
    try {
      await this.#call('kill', { container: handle.name, id: handle.id }, () =>
        this.#docker.getContainer(handle.id).kill(),
      );
    } catch (err) {
      if (err instanceof RuntimeNotFoundError) return;
      if (engineStatusCode(err instanceof Error ? err.cause : undefined) === 409) return; // not running
      throw err;
    }
  }

  async remove(handle: ContainerHandle): Promise<void> {
    await this.removeContainerIfExists(handle.id);
  }

  async removeContainerIfExists(nameOrId: string): Promise<boolean> {
    try {
      const removed = await this.#maybe('removeContainer', { container: nameOrId }, async () => {
        await this.#docker.getContainer(nameOrId).remove({ force: true });
        return true;
      });
      return removed ?? false;
    } catch (err) {
      // "removal of container ... is already in progress"
      if (engineStatusCode(err instanceof Error ? err.cause : undefined) === 409) return true;
      throw err;
    }
  }

  async inspectContainer(nameOrId: string): Promise<ContainerState | undefined> {
    const info = await this.#maybe('inspectContainer', { container: nameOrId }, () =>
      this.#docker.getContainer(nameOrId).inspect(),
    );
    if (info === undefined) return undefined;
    const status = toStatus(info.State.Status);
    const stopped = status === 'exited' || status === 'dead';
    return {
      id: info.Id,
      name: info.Name.replace(/^\//, ''),
      status,
      running: info.State.Running,
      exitCode: stopped ? info.State.ExitCode : undefined,
      startedAt: info.State.StartedAt.startsWith('0001-') ? undefined : info.State.StartedAt,
      finishedAt: !stopped || info.State.FinishedAt.startsWith('0001-') ? undefined : info.State.FinishedAt,
      labels: { ...(info.Config.Labels ?? {}) },
    };
  }

  async listContainers(labels: Readonly<Record<string, string>>): Promise<ContainerSummary[]> {
    const label = Object.entries(labels).map(([k, v]) => (v === '' ? k : `${k}=${v}`));
    const list = await this.#call('listContainers', {}, () =>
      this.#docker.listContainers({ all: true, filters: JSON.stringify({ label }) }),
    );
    return list.map((c) => ({
      id: c.Id,
      name: (c.Names[0] ?? '').replace(/^\//, ''),
      image: c.Image,
      labels: { ...(c.Labels ?? {}) },
      status: toStatus(c.State),
    }));
  }

  // ---------------------------------------------------------------- images

  async imageExists(ref: string): Promise<boolean> {
    return (await this.inspectImage(ref)) !== undefined;
  }

  async inspectImage(ref: string): Promise<ImageInfo | undefined> {
    checkReference('inspectImage', ref);
    const info = await this.#maybe('inspectImage', { image: ref }, () =>
      this.#docker.getImage(ref).inspect(),
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

  #authFor(ref: string, credentials?: RegistryCredentials): Docker.AuthConfig | undefined {
    const c = credentials ?? this.#credentials.get(parseImageRef(ref).registry);
    if (c === undefined) return undefined;
    const host = normalizeRegistry(c.registry);
    return {
      username: c.username,
      password: c.password,
      serveraddress: host === DOCKER_HUB ? 'https://index.docker.io/v1/' : host,
    };
  }

  /** Digest the registry announces for `ref`, or the reason it could not be asked. */
  async #remoteDigest(
    ref: string,
    auth: Docker.AuthConfig | undefined,
  ): Promise<{ digest: string } | { problem: string }> {
    try {
      const info = await withTimeout(
        this.#docker.getImage(ref).distribution(auth !== undefined ? { authconfig: auth } : {}),
        this.#registryTimeoutMs,
        () => new Error(`no answer within ${this.#registryTimeoutMs} ms`),
      );
      const digest = info.Descriptor?.digest;
      return typeof digest === 'string' && digest !== ''
        ? { digest }
        : { problem: 'the registry gave no digest' };
    } catch (err) {
      if (isSocketDown(err)) {
        throw new RuntimeUnavailableError('pullIfNewer', 'the Docker engine does not answer', {
          context: { image: ref },
          cause: err,
        });
      }
      return { problem: engineMessage(err) };
    }
  }

  async #pull(ref: string, auth: Docker.AuthConfig | undefined): Promise<string | undefined> {
    try {
      const stream = await this.#docker.pull(ref, auth !== undefined ? { authconfig: auth } : {});
      return await drainProgress(stream);
    } catch (err) {
      if (isSocketDown(err)) {
        throw new RuntimeUnavailableError('pullIfNewer', 'the Docker engine does not answer', {
          context: { image: ref },
          cause: err,
        });
      }
      return engineMessage(err);
    }
  }

  async pullIfNewer(ref: string, credentials?: RegistryCredentials): Promise<PullResult> {
    checkReference('pullIfNewer', ref);
    const wanted = parseImageRef(ref);
    const auth = this.#authFor(ref, credentials);
    const local = await this.inspectImage(ref);

    // A reference by digest names immutable content: a local copy is by definition current.
    if (local !== undefined && wanted.digest !== undefined)
      return { action: 'up-to-date', imageId: local.id };

    const remote = await this.#remoteDigest(ref, auth);
    if ('digest' in remote) {
      const current =
        local?.repoDigests.some((rd) => {
          const parsed = parseImageRef(rd);
          return parsed.digest === remote.digest && sameRepository(parsed, wanted);
        }) ?? false;
      if (current && local !== undefined) {
        return { action: 'up-to-date', remoteDigest: remote.digest, imageId: local.id };
      }
    }

    const reason = 'problem' in remote ? remote.problem : undefined;
    if (reason !== undefined && local !== undefined) {
      const warning = `could not ask the registry about ${ref} (${reason}); using the local image`;
      this.#logger?.warn({ image: ref }, warning);
      return { action: 'local-fallback', warning, imageId: local.id };
    }

    // Remote differs, or no local copy (then try a pull even when the inspect failed: some registries refuse it).
    const pullError = await this.#pull(ref, auth);
    const after = await this.inspectImage(ref);
    const remoteDigest = 'digest' in remote ? remote.digest : undefined;
    if (pullError === undefined && after !== undefined) {
      this.#logger?.debug({ image: ref, digest: remoteDigest }, 'image pulled');
      return { action: 'pulled', imageId: after.id, ...(remoteDigest !== undefined ? { remoteDigest } : {}) };
    }
    const why = pullError ?? reason ?? 'unknown reason';
    if (local !== undefined) {
      const warning = `pulling ${ref} failed (${why}); using the local image`;
      this.#logger?.warn({ image: ref }, warning);
      return {
        action: 'local-fallback',
        warning,
        imageId: local.id,
        ...(remoteDigest !== undefined ? { remoteDigest } : {}),
      };
    }
    const warning = `image ${ref} is neither available locally nor from its registry (${why})`;
    this.#logger?.warn({ image: ref }, warning);
    return { action: 'missing', warning };
  }

  async login(credentials: RegistryCredentials): Promise<void> {
    const host = normalizeRegistry(credentials.registry);
    this.#credentials.set(host, credentials);
    try {
      await this.#docker.checkAuth({
        username: credentials.username,
        password: credentials.password,
        serveraddress: host === DOCKER_HUB ? 'https://index.docker.io/v1/' : host,
      });
    } catch (err) {
      if (isSocketDown(err)) {
        throw new RuntimeUnavailableError('login', 'the Docker engine does not answer', {
          context: { registry: host },
          cause: err,
        });
      }
      throw new RegistryError(
        'login',
        `registry ${host} refused the login or cannot be reached: ${engineMessage(err)}`,
        {
          context: { registry: host, username: credentials.username },
          cause: err,
        },
      );
    }
  }
}
