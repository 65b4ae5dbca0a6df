/**
 * Image references as the node reads them: which registry holds an image and under which repository, and the
 * refusal of a reference the engine cannot parse. Engine-neutral (no dockerode).
 */
import { imageReferenceProblem } from '@federa/common';

import { InvalidReferenceError } from './errors.js';

/** Docker Hub's canonical host name. */
export const DOCKER_HUB = 'docker.io';

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

/** Same registry and repository (tags and digests aside). */
export function sameRepository(a: ImageRef, b: ImageRef): boolean {
  return a.registry === b.registry && a.repository === b.repository;
}

/**
 * Refuses a reference the engine cannot parse before it is put into a request path: the engine answers some of
 * them with a redirect that the Docker client follows to a host named after the reference, and that failure
 * escapes every promise (docs/security.md, "The node survives any task").
 */
export function checkImageReference(operation: string, ref: string): void {
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
