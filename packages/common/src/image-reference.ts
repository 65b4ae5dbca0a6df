/**
 * Checking an image reference before it reaches a container engine (docs/security.md, "The node survives any
 * task"). The accepted form is the one container engines accept:
 *
 *   [registry host[:port]/]path-component[/path-component...][:tag][@algorithm:hex]
 *
 * - a registry host is dot-separated labels of letters, digits and inner hyphens (or `localhost`), optionally
 *   with a port; it is recognised as a registry only when it has a dot, a port, or is `localhost`;
 * - a path component is lowercase letters and digits, joined by `.`, `_`, `__` or runs of `-`;
 * - a tag is 1–128 of letters, digits, `_`, `.`, `-`, not starting with `.` or `-`;
 * - a digest is an algorithm name, a colon and at least 32 hexadecimal digits.
 *
 * The whole reference is at most 512 characters and its name part at most 255. No whitespace, no control
 * characters, no `..`, no empty component.
 */

export const MAX_IMAGE_REFERENCE_LENGTH = 512;
const MAX_NAME_LENGTH = 255;

const HOST_LABEL = /^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;

/** Why `ref` is not a usable image reference, in words for a person; undefined when it is one. */
export function imageReferenceProblem(ref: unknown): string | undefined {
  if (typeof ref !== 'string') return 'must be a string';
  if (ref === '')
    return 'must not be empty: name the algorithm image, e.g. harbor.example.org/project/algorithm:1.0';
  if (ref.length > MAX_IMAGE_REFERENCE_LENGTH)
    return `is ${ref.length} characters long; an image reference has at most ${MAX_IMAGE_REFERENCE_LENGTH}`;
  if (/[\s\u0000-\u001f\u007f]/.test(ref)) return 'must not contain whitespace or control characters';

  let rest = ref;
  const at = rest.indexOf('@');
  if (at >= 0) {
    const digest = rest.slice(at + 1);
    if (!DIGEST.test(digest))
      return `has an invalid digest '${digest}' (expected e.g. sha256:<64 hex digits>)`;
    rest = rest.slice(0, at);
  }
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    const tag = rest.slice(colon + 1);
    if (!TAG.test(tag))
      return `has an invalid tag '${tag}' (letters, digits, '_', '.', '-', at most 128, not starting with '.' or '-')`;
    rest = rest.slice(0, colon);
  }
  if (rest.length > MAX_NAME_LENGTH) return `has a name longer than ${MAX_NAME_LENGTH} characters`;
  const parts = rest.split('/');
  const first = parts[0] ?? '';
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    const problem = registryProblem(first);
    if (problem) return problem;
    parts.shift();
  }
  if (parts.length === 0) return 'names a registry but no repository';
  for (const part of parts) {
    if (part === '') return 'has an empty path component (a leading, trailing or double slash)';
    if (!PATH_COMPONENT.test(part))
      return `has an invalid path component '${part}' (lowercase letters and digits, separated by '.', '_', '__' or '-')`;
  }
  return undefined;
}

function registryProblem(host: string): string | undefined {
  const colon = host.lastIndexOf(':');
  const name = colon >= 0 ? host.slice(0, colon) : host;
  if (colon >= 0) {
    const port = host.slice(colon + 1);
    if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65_535 || Number(port) === 0)
      return `has an invalid registry port '${port}'`;
  }
  const labels = name.split('.');
  if (labels.some((l) => !HOST_LABEL.test(l))) return `has an invalid registry host '${name}'`;
  return undefined;
}

/** True when `ref` is a usable image reference (see imageReferenceProblem). */
export const isImageReference = (ref: unknown): ref is string => imageReferenceProblem(ref) === undefined;

/** The parts of an image reference, as a container engine reads them. */
export interface ImageReferenceParts {
  /** The registry host (lower case, with its port); `docker.io` when the reference names none. */
  registry: string;
  /** The repository path; on `docker.io` a single name is under `library/`, as the engines resolve it. */
  repository: string;
  /** The tag, or undefined (the engine then uses the digest, or `latest`). */
  tag: string | undefined;
  /** `algorithm:hex`, or undefined. With a digest, the engine runs the digest and ignores the tag. */
  digest: string | undefined;
}

const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** Whether the first component of a reference names a registry: it has a dot or a port, or is `localhost`. */
export const namesRegistry = (component: string): boolean =>
  component.includes('.') || component.includes(':') || component === 'localhost';

/** The parts of `ref`, or undefined when it is no usable image reference (see imageReferenceProblem). */
export function parseImageReference(ref: string): ImageReferenceParts | undefined {
  if (imageReferenceProblem(ref) !== undefined) return undefined;
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1).toLowerCase();
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const parts = rest.split('/');
  let registry = 'docker.io';
  if (parts.length > 1 && namesRegistry(parts[0]!)) registry = parts.shift()!.toLowerCase();
  if (DOCKER_HUB.has(registry)) registry = 'docker.io';
  if (registry === 'docker.io' && parts.length === 1) parts.unshift('library');
  return { registry, repository: parts.join('/'), tag, digest };
}
