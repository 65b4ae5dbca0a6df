/** Volumes on the Docker engine (ContainerRuntime's volume part), host-backed ones included. */
import type { EnsureResult, VolumeFilter, VolumeInfo } from '../container-runtime.js';
import { ContainerRuntimeError } from '../errors.js';
import type { Engine } from './engine.js';

export async function ensureVolume(
  engine: Engine,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<EnsureResult> {
  const existing = await engine.maybe('ensureVolume', { volume: name }, () =>
    engine.docker.getVolume(name).inspect(),
  );
  if (existing !== undefined) return { name, created: false };
  await engine.call('ensureVolume', { volume: name }, () =>
    engine.docker.createVolume({ Name: name, Driver: 'local', Labels: { ...labels } }),
  );
  return { name, created: true };
}

/**
 * A volume that shows the host directory `hostDir` (local driver, bind). An existing volume of that name backed by
 * anything else is replaced; when it cannot be (a container uses it) the error says how to remove it.
 */
export async function ensureHostVolume(
  engine: Engine,
  name: string,
  hostDir: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<EnsureResult> {
  const context = { volume: name };
  const volume = engine.docker.getVolume(name);
  const info = await engine.maybe(
    'ensureHostVolume',
    context,
    async () => (await volume.inspect()) as { Options?: Record<string, string> | null },
  );
  if (info) {
    if (info.Options?.device === hostDir && info.Options?.o === 'bind') return { name, created: false };
    try {
      await volume.remove();
    } catch (cause) {
      throw new ContainerRuntimeError(
        'ensureHostVolume',
        `the volume ${name} exists but is not backed by ${hostDir} and cannot be replaced (is a container using it? remove it with 'docker volume rm ${name}')`,
        { context, cause },
      );
    }
  }
  await engine.call('ensureHostVolume', context, () =>
    engine.docker.createVolume({
      Name: name,
      Driver: 'local',
      DriverOpts: { type: 'none', o: 'bind', device: hostDir },
      Labels: { ...labels },
    }),
  );
  return { name, created: true };
}

export async function removeVolume(engine: Engine, name: string): Promise<void> {
  await engine.maybe('removeVolume', { volume: name }, () => engine.docker.getVolume(name).remove());
}

export async function listVolumes(engine: Engine, filter: VolumeFilter = {}): Promise<VolumeInfo[]> {
  const filters: Record<string, string[]> = {};
  if (filter.labels !== undefined && Object.keys(filter.labels).length > 0) {
    filters['label'] = Object.entries(filter.labels).map(([k, v]) => (v === '' ? k : `${k}=${v}`));
  }
  const res = await engine.call('listVolumes', {}, () =>
    engine.docker.listVolumes(Object.keys(filters).length > 0 ? { filters: JSON.stringify(filters) } : {}),
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
