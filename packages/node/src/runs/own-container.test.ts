import { describe, expect, it } from 'vitest';

import type { ContainerRuntime, ContainerState } from '../runtime/index.js';
import { findOwnContainer, ownContainerCandidates } from './own-container.js';

const ID_A = 'a'.repeat(64);
const ID_B = 'b'.repeat(64);
const mountinfo = `1 0 0:1 / / rw - overlay overlay rw
2 1 8:1 /var/lib/docker/containers/${ID_A}/hostname /etc/hostname rw - ext4 /dev/sda1 rw
3 1 8:1 /var/lib/docker/volumes/x/_data /mnt/data rw - ext4 /dev/sda1 rw`;
const cgroup = `0::/system.slice/docker-${ID_B}.scope\n`;

const sources = (env: Record<string, string>, files: Record<string, string>) => ({
  env,
  hostname: () => 'a1b2c3d4e5f6',
  readText: (path: string) =>
    files[path] !== undefined ? Promise.resolve(files[path]) : Promise.reject(new Error('ENOENT')),
});

describe('ownContainerCandidates', () => {
  it('lists the env name, the hostname, then ids from mountinfo and cgroup', async () => {
    const got = await ownContainerCandidates(
      sources(
        { FEDERA_NODE_CONTAINER: 'federa-alpha-user' },
        { '/proc/self/mountinfo': mountinfo, '/proc/self/cgroup': cgroup },
      ),
    );
    expect(got).toEqual(['federa-alpha-user', 'a1b2c3d4e5f6', ID_A, ID_B]);
  });

  it('works with nothing readable (not in a container)', async () => {
    expect(await ownContainerCandidates(sources({}, {}))).toEqual(['a1b2c3d4e5f6']);
  });
});

describe('findOwnContainer', () => {
  it('takes the first candidate the engine knows as a running container', async () => {
    const runtime = {
      inspectContainer: (name: string): Promise<ContainerState | undefined> =>
        Promise.resolve(
          name === ID_A
            ? ({ id: ID_A, name: 'federa-alpha-user', running: true } as ContainerState)
            : undefined,
        ),
    } as unknown as ContainerRuntime;
    const own = await findOwnContainer(runtime, {}, sources({}, { '/proc/self/mountinfo': mountinfo }));
    expect(own).toEqual({ id: ID_A, name: 'federa-alpha-user', via: ID_A });
    expect(await findOwnContainer(runtime, {}, sources({}, {}))).toBeUndefined();
  });
});
