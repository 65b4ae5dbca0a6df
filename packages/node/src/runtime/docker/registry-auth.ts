/**
 * Registry credentials (node config `docker_registries`): remembered per registry host, chosen for an image by the
 * host its reference names, and checked against the registry through the engine (`/auth`).
 */
import type Docker from 'dockerode';

import type { RegistryCredentials } from '../container-runtime.js';
import { RegistryError, engineMessage } from '../errors.js';
import { DOCKER_HUB, normalizeRegistry, parseImageRef } from '../image-ref.js';
import { engineDown, isSocketDown } from './engine.js';

/** The engine's name for a registry host (Docker Hub keeps its v1 index address). */
const serverAddress = (host: string): string => (host === DOCKER_HUB ? 'https://index.docker.io/v1/' : host);

export class RegistryAuth {
  readonly #credentials = new Map<string, RegistryCredentials>();

  /** @param registries logins known from the start; not verified here, see login(). */
  constructor(registries: readonly RegistryCredentials[] = []) {
    for (const c of registries) this.#credentials.set(normalizeRegistry(c.registry), c);
  }

  /** The login for pulling `ref`: the given credentials, else those remembered for its registry host. */
  authFor(ref: string, credentials?: RegistryCredentials): Docker.AuthConfig | undefined {
    const c = credentials ?? this.#credentials.get(parseImageRef(ref).registry);
    if (c === undefined) return undefined;
    return {
      username: c.username,
      password: c.password,
      serveraddress: serverAddress(normalizeRegistry(c.registry)),
    };
  }

  /**
   * Remembers the credentials for their registry host, then checks them with the registry. Throws RegistryError
   * when it refuses them or cannot be reached (they stay remembered), RuntimeUnavailableError when the engine is down.
   */
  async login(docker: Docker, credentials: RegistryCredentials): Promise<void> {
    const host = normalizeRegistry(credentials.registry);
    this.#credentials.set(host, credentials);
    try {
      await docker.checkAuth({
        username: credentials.username,
        password: credentials.password,
        serveraddress: serverAddress(host),
      });
    } catch (err) {
      if (isSocketDown(err)) throw engineDown('login', { registry: host }, err);
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
