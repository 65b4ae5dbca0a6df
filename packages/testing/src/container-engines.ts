/**
 * What the tests of the container runtimes need of Docker and rootless Podman: the engines of this machine, the
 * names and labels every object of a run carries, the builders of a suite for one engine, a check that fails (never
 * skips) with what to run when an engine or an image is missing, and the removal of what a suite made.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createContainerRuntime,
  type ContainerHandle,
  type ContainerRuntime,
  type ContainerSpec,
  type RuntimeKind,
} from '@federa/node';

export const NODE_IMAGE = 'federa/base-node:local';
export const HELPER_IMAGE = 'federa/helper:local';
export const TEST_LABEL = 'federa.test-run';

/** A unique prefix for everything one suite creates (removed in its afterAll). */
export const runPrefix = (stem = 'fedcf'): string => `${stem}${randomBytes(3).toString('hex')}`;

/** Clean-ups of a suite, run last first by {@link cleanUp}. */
export type Cleanups = Array<() => Promise<unknown>>;

export async function cleanUp(cleanups: Cleanups): Promise<void> {
  for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
}

export interface Engine {
  readonly kind: RuntimeKind;
  readonly runtime: ContainerRuntime;
  /** Host user whose files a container's root writes (rootless: the engine's user). */
  readonly owner: { uid: number; gid: number };
  /** What to run when the engine or its images are missing. */
  readonly setup: string;
}

/** The root Docker daemon, through `runtime` (default: the runtime the node makes of it). */
export const dockerEngine = (
  runtime: ContainerRuntime = createContainerRuntime({ kind: 'docker', registryTimeoutMs: 5_000 }),
): Engine => ({
  kind: 'docker',
  runtime,
  owner: { uid: 0, gid: 0 },
  setup: 'scripts/docker-engine.sh and scripts/build-images.sh (as root)',
});

function podmanUser(name: string): { uid: number; gid: number } | undefined {
  try {
    const [uid, gid] = ['-u', '-g'].map((f) =>
      Number(execFileSync('id', [f, name], { encoding: 'utf8' }).trim()),
    );
    return uid !== undefined && gid !== undefined ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

let engines: Engine[] | undefined;

/** Docker and rootless Podman (the user FEDERA_PODMAN_USER, default federa-podman), made on first use. */
export function containerEngines(): Engine[] {
  if (engines) return engines;
  const owner = podmanUser(process.env['FEDERA_PODMAN_USER'] ?? 'federa-podman');
  engines = [
    dockerEngine(),
    {
      kind: 'podman',
      runtime: createContainerRuntime({
        kind: 'podman',
        socketPath:
          process.env['FEDERA_PODMAN_SOCKET'] ?? `/run/user/${owner?.uid ?? 'NONE'}/podman/podman.sock`,
        registryTimeoutMs: 5_000,
      }),
      owner: owner ?? { uid: -1, gid: -1 },
      setup: 'scripts/podman-rootless.sh (as root, after the Docker images are built)',
    },
  ];
  return engines;
}

/** A container that ran to its end: its exit code and logs. */
export interface FinishedContainer {
  exitCode: number;
  logs: string;
  handle: ContainerHandle;
}

/** The builders of a suite for one engine: container specs named and labelled under `prefix`, runs to the end. */
export function engineKit(engine: Engine, prefix: string, cleanups: Cleanups) {
  const { runtime, owner } = engine;
  const spec = (name: string, cmd: string[], extra: Partial<ContainerSpec> = {}): ContainerSpec => ({
    name: `${prefix}-${name}`,
    image: NODE_IMAGE,
    env: {},
    mounts: [],
    labels: { [TEST_LABEL]: prefix },
    cmd,
    ...extra,
  });
  const runToEnd = async (s: ContainerSpec): Promise<FinishedContainer> => {
    const handle = await runtime.runContainer(s);
    const { exitCode } = await runtime.waitForExit(handle, { timeoutMs: 20_000 });
    return { exitCode, logs: await runtime.logs(handle), handle };
  };
  /** A host folder the engine's containers may write (rootless: owned by the engine's user). */
  const hostDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
    await chown(dir, owner.uid, owner.gid);
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    return dir;
  };
  return { spec, runToEnd, hostDir };
}

/** Fails with what to run when the engine does not answer or lacks an image of the suites. */
export async function requireEngine({ kind, runtime, setup }: Engine): Promise<void> {
  try {
    await runtime.ping();
  } catch (err) {
    throw new Error(`${kind} is not usable (${(err as Error).message}). Run ${setup} first.`);
  }
  for (const image of [NODE_IMAGE, HELPER_IMAGE]) {
    if (!(await runtime.imageExists(image)))
      throw new Error(`${kind}: image ${image} missing. Run ${setup}.`);
  }
}

/** Removes the containers, networks and volumes a suite made under `prefix`. */
export async function removeEngineObjects(runtime: ContainerRuntime, prefix: string): Promise<void> {
  for (const c of await runtime.listContainers({ [TEST_LABEL]: prefix })) await runtime.remove(c);
  for (const n of [`${prefix}-net`, `${prefix}-open-net`]) await runtime.removeNetwork(n);
  for (const v of await runtime.listVolumes({ prefix })) await runtime.removeVolume(v.name);
}
