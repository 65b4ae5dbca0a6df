/**
 * The node's data volume `<prefix>-<node>-vol`, backed by a directory of the host (Docker's local volume driver
 * with a bind of that directory). The node, running on the host, writes input, token and copied databases into
 * the directory; algorithm containers mount the named volume at /mnt/data and see the same files.
 *
 * The ContainerRuntime interface has no driver options for volumes yet, so this small adapter talks to the
 * engine itself (the only dockerode use outside runtime/).
 */
import { mkdir } from 'node:fs/promises';
import Docker from 'dockerode';

export interface HostBackedVolume {
  readonly name: string;
  readonly hostDir: string;
  /** true when created by this call. */
  readonly created: boolean;
}

export async function ensureHostBackedVolume(
  name: string,
  hostDir: string,
  labels: Readonly<Record<string, string>>,
  socketPath?: string,
): Promise<HostBackedVolume> {
  await mkdir(hostDir, { recursive: true, mode: 0o755 });
  const docker = new Docker(socketPath !== undefined ? { socketPath } : undefined);
  const volume = docker.getVolume(name);
  let info: { Options?: Record<string, string> | null } | undefined;
  try {
    info = (await volume.inspect()) as { Options?: Record<string, string> | null };
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode !== 404) throw error;
  }
  if (info) {
    if (info.Options?.device === hostDir && info.Options?.o === 'bind')
      return { name, hostDir, created: false };
    try {
      await volume.remove();
    } catch (cause) {
      throw new Error(
        `the volume ${name} exists but is not backed by ${hostDir} and cannot be replaced (is a container using it? remove it with 'docker volume rm ${name}')`,
        { cause },
      );
    }
  }
  await docker.createVolume({
    Name: name,
    Driver: 'local',
    DriverOpts: { type: 'none', o: 'bind', device: hostDir },
    Labels: { ...labels },
  });
  return { name, hostDir, created: true };
}
