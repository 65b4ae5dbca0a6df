/** Containers on the Docker engine (ContainerRuntime's container part). */
import type {
  ContainerHandle,
  ContainerSpec,
  ContainerStats,
  ContainerState,
  ContainerSummary,
  ExecResult,
  ExitResult,
  WaitOptions,
} from '../container-runtime.js';
import {
  ContainerRuntimeError,
  ImageUnavailableError,
  RuntimeNotFoundError,
  RuntimeTimeoutError,
  engineMessage,
  engineStatusCode,
} from '../errors.js';
import { checkImageReference } from '../image-ref.js';
import { containerCreateOptions, toStatus } from './container-options.js';
import type { Engine } from './engine.js';
import { demuxLog, demuxStreamToEnd, followStream, withTimeout } from './streams.js';

export async function runContainer(engine: Engine, spec: ContainerSpec): Promise<ContainerHandle> {
  checkImageReference('runContainer', spec.image);
  const context = { container: spec.name, image: spec.image };
  const options = containerCreateOptions(spec);
  const container = await engine.call('runContainer', context, async () => {
    try {
      return await engine.docker.createContainer(options);
    } catch (err) {
      const status = engineStatusCode(err);
      const message = engineMessage(err);
      if (status === 404 && /image/i.test(message)) {
        throw new ImageUnavailableError(
          'runContainer',
          `image ${spec.image} is not available locally (${message})`,
          { context, cause: err },
        );
      }
      // Docker answers 409; Podman 500 with "the container name ... is already in use".
      if (status === 409 || /name .* is already in use/.test(message)) {
        throw new ContainerRuntimeError(
          'runContainer',
          `a container named ${spec.name} exists already (${message})`,
          { context, cause: err },
        );
      }
      throw err;
    }
  });
  try {
    await engine.call('runContainer', context, () => container.start());
  } catch (err) {
    await container.remove({ force: true }).catch(() => undefined);
    throw err;
  }
  engine.logger?.debug({ container: spec.name, id: container.id, image: spec.image }, 'container started');
  return { id: container.id, name: spec.name };
}

export async function waitForExit(
  engine: Engine,
  handle: ContainerHandle,
  options: WaitOptions = {},
): Promise<ExitResult> {
  const context = { container: handle.name, id: handle.id };
  const wait = engine.call('waitForExit', context, async () => {
    const res = (await engine.docker.getContainer(handle.id).wait()) as { StatusCode: number };
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

export async function logs(engine: Engine, handle: ContainerHandle): Promise<string> {
  const raw = await engine.call('logs', { container: handle.name, id: handle.id }, () =>
    engine.docker.getContainer(handle.id).logs({ stdout: true, stderr: true, follow: false }),
  );
  return demuxLog(engine.docker.modem, raw);
}

/**
 * Follows a container's stdout and stderr from its start: `onText` gets each piece as the engine sends it. Resolves
 * when the container's streams end, or at once when `signal` aborts.
 */
export async function followLogs(
  engine: Engine,
  handle: ContainerHandle,
  onText: (text: string) => void,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted) return;
  const stream = (await engine.call('followLogs', { container: handle.name, id: handle.id }, () =>
    engine.docker.getContainer(handle.id).logs({ stdout: true, stderr: true, follow: true }),
  )) as unknown as NodeJS.ReadableStream & { destroy?: () => void };
  await followStream(engine.docker.modem, stream, onText, signal);
}

export async function exec(engine: Engine, nameOrId: string, cmd: readonly string[]): Promise<ExecResult> {
  return engine.call('exec', { container: nameOrId }, async () => {
    const run = await engine.docker
      .getContainer(nameOrId)
      .exec({ Cmd: [...cmd], AttachStdout: true, AttachStderr: true, Tty: false });
    const stream = await run.start({ hijack: true, stdin: false });
    const output = await demuxStreamToEnd(engine.docker.modem, stream);
    const inspected = await run.inspect();
    return { exitCode: inspected.ExitCode ?? -1, output };
  });
}

export async function kill(engine: Engine, handle: ContainerHandle): Promise<void> {
  try {
    await engine.call('kill', { container: handle.name, id: handle.id }, () =>
      engine.docker.getContainer(handle.id).kill(),
    );
  } catch (err) {
    if (err instanceof RuntimeNotFoundError) return;
    // Not running: Docker answers 409, Podman 500 "can only kill running containers".
    const cause = err instanceof Error ? err.cause : undefined;
    if (engineStatusCode(cause) === 409 || /can only kill running containers/.test(engineMessage(cause)))
      return;
    throw err;
  }
}

export async function removeContainerIfExists(engine: Engine, nameOrId: string): Promise<boolean> {
  try {
    const removed = await engine.maybe('removeContainer', { container: nameOrId }, async () => {
      await engine.docker.getContainer(nameOrId).remove({ force: true });
      return true;
    });
    return removed ?? false;
  } catch (err) {
    // "removal of container ... is already in progress"
    if (engineStatusCode(err instanceof Error ? err.cause : undefined) === 409) return true;
    throw err;
  }
}

export async function inspectContainer(
  engine: Engine,
  nameOrId: string,
): Promise<ContainerState | undefined> {
  const info = await engine.maybe('inspectContainer', { container: nameOrId }, () =>
    engine.docker.getContainer(nameOrId).inspect(),
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
    addresses: Object.fromEntries(
      Object.entries(info.NetworkSettings?.Networks ?? {})
        .filter(([, n]) => typeof n?.IPAddress === 'string' && n.IPAddress !== '')
        .map(([name, n]) => [name, n.IPAddress]),
    ),
  };
}

export async function listContainers(
  engine: Engine,
  labels: Readonly<Record<string, string>>,
): Promise<ContainerSummary[]> {
  const label = Object.entries(labels).map(([k, v]) => (v === '' ? k : `${k}=${v}`));
  const list = await engine.call('listContainers', {}, () =>
    engine.docker.listContainers({ all: true, filters: JSON.stringify({ label }) }),
  );
  return list.map((c) => ({
    id: c.Id,
    name: (c.Names[0] ?? '').replace(/^\//, ''),
    image: c.Image,
    labels: { ...(c.Labels ?? {}) },
    status: toStatus(c.State),
  }));
}

export async function stats(engine: Engine, nameOrId: string): Promise<ContainerStats | undefined> {
  // One reading without the engine's second sample (`one-shot`): the CPU figure is cumulative, so none is needed.
  const raw = (await engine.maybe('stats', { container: nameOrId }, () =>
    engine.docker.getContainer(nameOrId).stats({ stream: false, 'one-shot': true } as { stream: false }),
  )) as
    | {
        cpu_stats?: { cpu_usage?: { total_usage?: number } };
        memory_stats?: { usage?: number; stats?: Record<string, number> };
      }
    | undefined;
  const cpuNs = raw?.cpu_stats?.cpu_usage?.total_usage;
  if (raw === undefined || cpuNs === undefined || cpuNs === 0) return undefined;
  const memory = raw.memory_stats ?? {};
  // As `docker stats` shows it: usage less the page cache the kernel can drop.
  const cache = memory.stats?.inactive_file ?? memory.stats?.total_inactive_file ?? memory.stats?.cache ?? 0;
  return { cpuSeconds: cpuNs / 1e9, memoryBytes: Math.max(0, (memory.usage ?? 0) - cache) };
}
