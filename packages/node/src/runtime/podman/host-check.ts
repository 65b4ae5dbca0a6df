/**
 * The kernel and host features rootless Podman needs (docs/deploy-node.md#rootless-podman), checked for the user the
 * node runs as, so that the node can say at start which one is missing instead of failing at the first run.
 */
import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export interface HostFeature {
  readonly feature: string;
  /** What to do about it. */
  readonly fix: string;
}

export interface HostCheckOptions {
  /** The user the containers run as (name and uid). */
  readonly user: { readonly name: string; readonly uid: number };
  /** Root of the files read (tests point it at a folder of their own). @default '/' */
  readonly root?: string;
  /** @default process.env.PATH */
  readonly path?: string;
  /** From Podman's info, when it answered: resource limits need cgroup v2 with these controllers delegated. */
  readonly cgroup?: { readonly version: string; readonly controllers: readonly string[] };
  /** From Podman's info, when it answered: its storage driver and network backend. */
  readonly engine?: { readonly storageDriver: string; readonly networkBackend: string };
}

const readText = (file: string): Promise<string | undefined> => readFile(file, 'utf8').catch(() => undefined);

async function usable(file: string, mode: number): Promise<boolean> {
  try {
    await access(file, mode);
    return true;
  } catch {
    return false;
  }
}

async function onPath(binary: string, path: string, root: string): Promise<boolean> {
  for (const dir of path.split(delimiter)) {
    if (dir !== '' && (await usable(join(root, dir, binary), constants.X_OK))) return true;
  }
  return false;
}

/** Every missing feature, each with what to do; empty when rootless Podman has what it needs. */
export async function missingRootlessFeatures(options: HostCheckOptions): Promise<HostFeature[]> {
  const root = options.root ?? '/';
  const path = options.path ?? process.env['PATH'] ?? '';
  const at = (p: string): string => join(root, p);
  const missing: HostFeature[] = [];

  const maxNs = Number((await readText(at('proc/sys/user/max_user_namespaces')))?.trim() ?? '0');
  if (!(maxNs > 0)) {
    missing.push({
      feature: 'user namespaces (user.max_user_namespaces is 0 or unreadable)',
      fix: 'sysctl -w user.max_user_namespaces=28633 (and in /etc/sysctl.d/ to keep it)',
    });
  }
  const clone = (await readText(at('proc/sys/kernel/unprivileged_userns_clone')))?.trim();
  if (clone !== undefined && clone !== '1') {
    missing.push({
      feature: 'unprivileged user namespaces (kernel.unprivileged_userns_clone is 0)',
      fix: 'sysctl -w kernel.unprivileged_userns_clone=1',
    });
  }
  const { name, uid } = options.user;
  for (const file of ['etc/subuid', 'etc/subgid']) {
    const lines = ((await readText(at(file))) ?? '').split('\n');
    if (!lines.some((l) => l.startsWith(`${name}:`) || l.startsWith(`${uid}:`))) {
      missing.push({
        feature: `a subordinate id range for ${name} in /${file}`,
        fix: `usermod --add-subuids 100000-165535 --add-subgids 100000-165535 ${name}`,
      });
    }
  }
  for (const binary of ['newuidmap', 'newgidmap']) {
    if (!(await onPath(binary, path, root)))
      missing.push({ feature: `${binary} (setuid helper)`, fix: 'apt-get install uidmap' });
  }
  if (!(await onPath('slirp4netns', path, root)))
    missing.push({
      feature: 'slirp4netns (the network of rootless containers)',
      fix: 'apt-get install slirp4netns',
    });
  if (!(await usable(at('dev/net/tun'), constants.R_OK | constants.W_OK))) {
    missing.push({
      feature: '/dev/net/tun, readable and writable by this user (slirp4netns opens it)',
      fix: 'modprobe tun; chmod 0666 /dev/net/tun (the mode most distributions give it)',
    });
  }
  const cgroup = options.cgroup;
  if (cgroup !== undefined) {
    const needed = ['memory', 'cpu', 'pids'].filter((c) => !cgroup.controllers.includes(c));
    if (cgroup.version !== 'v2' || needed.length > 0) {
      missing.push({
        feature:
          cgroup.version !== 'v2'
            ? `cgroup v2 (this host has ${cgroup.version || 'an unknown version'}): rootless containers get no resource limits`
            : `the cgroup controllers ${needed.join(', ')} delegated to this user: rootless containers get no resource limits`,
        fix: 'boot with systemd.unified_cgroup_hierarchy=1 and delegate controllers to user sessions (Delegate=cpu memory pids)',
      });
    }
  }
  const engine = options.engine;
  if (engine !== undefined && engine.storageDriver === 'vfs') {
    missing.push({
      feature:
        'overlay storage (Podman uses vfs here, which copies an image whole for every run: seconds per run for a large image)',
      fix: 'put [storage] driver = "overlay" in ~/.config/containers/storage.conf (kernel 5.13 or newer, else add mount_program = "/usr/bin/fuse-overlayfs" under [storage.options.overlay]), then podman system reset and load the images again',
    });
  }
  if (engine !== undefined && engine.networkBackend !== '' && engine.networkBackend !== 'netavark') {
    missing.push({
      feature: `the netavark network backend (Podman uses ${engine.networkBackend} here: its networks have no names for their containers)`,
      fix: 'apt-get install netavark aardvark-dns; put [network] network_backend = "netavark" in ~/.config/containers/containers.conf; restart the API service',
    });
  }
  return missing;
}
