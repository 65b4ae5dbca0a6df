/**
 * Two calls of Podman's own API (beside the Docker-compatible one on the same socket) that the node needs: its
 * description of its host (`GET /libpod/info`: version, rootless or not, cgroups; an engine that is not Podman
 * answers 404), and a forced removal that takes the containers sharing a namespace with it along.
 */
import type Docker from 'dockerode';

import { ContainerRuntimeError, engineMessage, engineStatusCode } from '../errors.js';

export interface LibpodInfo {
  readonly version: string;
  readonly rootless: boolean;
  readonly cgroupVersion: string;
  /** cgroup controllers the user may use (`memory`, `cpu`, `pids`, ...): resource limits need them. */
  readonly cgroupControllers: readonly string[];
  readonly networkBackend: string;
  readonly storageDriver: string;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};

/** Parses the engine's answer; every field is checked (the socket's answer is not trusted). */
export function parseLibpodInfo(body: unknown): LibpodInfo {
  const root = record(body);
  const host = record(root['host']);
  const controllers = host['cgroupControllers'];
  return {
    version: text(record(root['version'])['Version']),
    rootless: record(host['security'])['rootless'] === true,
    cgroupVersion: text(host['cgroupVersion']),
    cgroupControllers: Array.isArray(controllers) ? controllers.filter((c) => typeof c === 'string') : [],
    networkBackend: text(host['networkBackend']),
    storageDriver: text(record(root['store'])['graphDriverName']),
  };
}

export function dial(
  docker: Docker,
  method: string,
  path: string,
  statusCodes: Record<number, boolean | string>,
  query: Record<string, string | boolean | readonly string[]> = {},
  abortSignal?: AbortSignal,
): Promise<unknown> {
  // docker-modem appends the query to a path that ends in '?' (an array repeats its key).
  const withQuery = Object.keys(query).length > 0 ? `${path}?` : path;
  return new Promise<unknown>((resolve, reject) => {
    docker.modem.dial(
      {
        path: withQuery,
        method,
        statusCodes,
        options: query,
        ...(abortSignal !== undefined ? { abortSignal } : {}),
      },
      (err: unknown, data: unknown) => (err ? reject(err) : resolve(data)),
    );
  });
}

/** Forced removal of a container and of every container that joined its namespaces; none: no error. */
export async function removeWithDependents(docker: Docker, nameOrId: string): Promise<void> {
  try {
    await dial(
      docker,
      'DELETE',
      `/v4.0.0/libpod/containers/${encodeURIComponent(nameOrId)}`,
      { 200: true, 404: 'no such container' },
      { force: true, depend: true },
    );
  } catch (err) {
    if (engineStatusCode(err) === 404) return;
    throw new ContainerRuntimeError('removeContainer', engineMessage(err), {
      context: { container: nameOrId },
      cause: err,
    });
  }
}

/** Podman's info, or undefined when the engine behind the socket is not Podman. */
export async function libpodInfo(docker: Docker): Promise<LibpodInfo | undefined> {
  try {
    return parseLibpodInfo(
      await dial(docker, 'GET', '/v4.0.0/libpod/info', { 200: true, 404: 'not podman' }),
    );
  } catch (err) {
    if (engineStatusCode(err) === 404) return undefined;
    throw new ContainerRuntimeError('ping', `cannot read Podman's info: ${engineMessage(err)}`, {
      cause: err,
    });
  }
}
