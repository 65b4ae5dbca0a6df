/**
 * Which container the node itself runs in, when it runs in Docker: it must attach that container to its private
 * network (alias `proxyserver`). Candidates, first confirmed by the engine wins:
 *
 * 1. env `FEDERA_NODE_CONTAINER` (`vnode start` passes the container name);
 * 2. the hostname (Docker sets it to the short container id unless `--hostname` was given);
 * 3. 64-hex container ids in `/proc/self/mountinfo` (`/var/lib/docker/containers/<id>/hostname`, cgroup v2 hosts);
 * 4. 64-hex ids in `/proc/self/cgroup` (`/docker/<id>`, `docker-<id>.scope`, cgroup v1 hosts).
 */
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';

import type { ContainerRuntime } from '../runtime/index.js';

export const OWN_CONTAINER_ENV = 'FEDERA_NODE_CONTAINER';

export interface OwnContainerSources {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly hostname: () => string;
  readonly readText: (path: string) => Promise<string>;
}

const defaultSources = (env: Readonly<Record<string, string | undefined>>): OwnContainerSources => ({
  env,
  hostname,
  readText: (path) => readFile(path, 'utf8'),
});

const ID = /[0-9a-f]{64}/g;

/** The candidate names and ids, most trusted first, without duplicates. */
export async function ownContainerCandidates(sources: OwnContainerSources): Promise<string[]> {
  const out: string[] = [];
  const add = (c: string | undefined): void => {
    if (c && !out.includes(c)) out.push(c);
  };
  add(sources.env[OWN_CONTAINER_ENV]?.trim());
  add(sources.hostname().trim());
  for (const path of ['/proc/self/mountinfo', '/proc/self/cgroup']) {
    const text = await sources.readText(path).catch(() => '');
    // mountinfo: prefer ids under /containers/ (the engine's own files for this container).
    const preferred = [...text.matchAll(/\/containers\/([0-9a-f]{64})\//g)].map((m) => m[1]);
    for (const id of [...preferred, ...(text.match(ID) ?? [])]) add(id);
  }
  return out;
}

/**
 * The id of the container this process runs in, confirmed with the engine; undefined when no candidate is a
 * container the engine knows (the node is not in a container of that engine).
 */
export async function findOwnContainer(
  runtime: ContainerRuntime,
  env: Readonly<Record<string, string | undefined>>,
  sources: OwnContainerSources = defaultSources(env),
): Promise<{ id: string; name: string; via: string } | undefined> {
  for (const candidate of await ownContainerCandidates(sources)) {
    const state = await runtime.inspectContainer(candidate).catch(() => undefined);
    if (state?.running) return { id: state.id, name: state.name, via: candidate };
  }
  return undefined;
}
