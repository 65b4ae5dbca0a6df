import { imageReferenceProblem, namesRegistry, parseImageReference } from '@federa/common';

/**
 * The patterns of `policies.allowed_algorithms` (docs/node.md#image-policies). A pattern names parts of an image
 * reference, and an image is allowed when its parts (registry, repository, tag, digest, as a container engine
 * reads them) equal what the pattern names: never by a prefix of the text, so `harbor.example.org` does not admit
 * `harbor.example.org.evil.example/algo`, and a tag pin is not passed by `tag@digest` (the engine would run the
 * digest).
 *
 * The regex spellings vantage6 configurations use keep their meaning where it is one of these: a leading `^`, a
 * trailing `$`, `\.` for a dot, and a trailing `.*` after `/` or `:`. Anything else a regular expression could say
 * (alternatives, classes, a prefix of a name) is refused when the node starts, with the forms to write instead.
 */
export type ImagePattern =
  | { readonly kind: 'registry'; readonly registry: string }
  | { readonly kind: 'namespace'; readonly registry: string; readonly prefix: string }
  | { readonly kind: 'repository'; readonly registry: string; readonly repository: string }
  | { readonly kind: 'tag'; readonly registry: string; readonly repository: string; readonly tag: string }
  | {
      readonly kind: 'digest';
      readonly registry: string;
      readonly repository: string;
      readonly digest: string;
    };

const FORMS =
  'write a registry (harbor.example.org), a namespace ending in / (harbor.example.org/project/), a repository (harbor.example.org/project/algo, any tag), or one pinned with :tag or @sha256:<digest>';

/** The pattern `text` stands for, or why it stands for none (in words for the node's administrator). */
export function parseImagePattern(text: string): ImagePattern | string {
  let body = text;
  if (body.startsWith('^')) body = body.slice(1);
  if (body.endsWith('$') && !body.endsWith('\\$')) body = body.slice(0, -1);
  body = body.replace(/\\([./:@-])/g, '$1');
  let open = false;
  if (body.endsWith('.*')) {
    body = body.slice(0, -2);
    open = true;
  } else if (body.endsWith('*')) {
    body = body.slice(0, -1);
    open = true;
  }
  if (body === '') return `matches every image; leave allowed_algorithms empty for that, or ${FORMS}`;
  if (!/^[A-Za-z0-9._:/@-]+$/.test(body))
    return `is a regular expression, not an image pattern (patterns are matched part by part); ${FORMS}`;
  if (body.endsWith('/')) {
    const name = body.slice(0, -1);
    if (!name.includes('/') && namesRegistry(name)) return registryPattern(name);
    const parts = parseImageReference(`${name}/x`);
    if (!parts || parts.tag !== undefined || parts.digest !== undefined)
      return `is not a namespace; ${FORMS}`;
    return { kind: 'namespace', registry: parts.registry, prefix: parts.repository.slice(0, -2) };
  }
  if (body.endsWith(':')) return repositoryPattern(body.slice(0, -1));
  if (open)
    return `ends in part of a name (it would admit any image whose name begins so); end it with / for a namespace or : for any tag of one repository, or ${FORMS}`;
  const host = body.split(':')[0]!;
  if (!body.includes('/') && !body.includes('@') && (host.includes('.') || host === 'localhost'))
    return registryPattern(body);
  const problem = imageReferenceProblem(body);
  if (problem) return `${problem}; ${FORMS}`;
  const parts = parseImageReference(body)!;
  const { registry, repository } = parts;
  if (parts.digest !== undefined) return { kind: 'digest', registry, repository, digest: parts.digest };
  if (parts.tag !== undefined) return { kind: 'tag', registry, repository, tag: parts.tag };
  return { kind: 'repository', registry, repository };
}

function registryPattern(host: string): ImagePattern | string {
  const parts = parseImageReference(`${host}/x`);
  if (!parts || parts.repository !== 'x') return `is not a registry host; ${FORMS}`;
  return { kind: 'registry', registry: parts.registry };
}

function repositoryPattern(name: string): ImagePattern | string {
  const parts = parseImageReference(name);
  if (!parts || parts.tag !== undefined || parts.digest !== undefined) return `is not a repository; ${FORMS}`;
  return { kind: 'repository', registry: parts.registry, repository: parts.repository };
}

/** Whether `image` is one `pattern` allows (see {@link ImagePattern}); an unusable reference never is. */
export function imageMatches(image: string, pattern: ImagePattern): boolean {
  const parts = parseImageReference(image);
  if (!parts || parts.registry !== pattern.registry) return false;
  switch (pattern.kind) {
    case 'registry':
      return true;
    case 'namespace':
      return parts.repository.startsWith(`${pattern.prefix}/`);
    case 'repository':
      return parts.repository === pattern.repository;
    case 'tag':
      return (
        parts.repository === pattern.repository &&
        parts.digest === undefined &&
        (parts.tag ?? 'latest') === pattern.tag
      );
    case 'digest':
      return parts.repository === pattern.repository && parts.digest === pattern.digest;
  }
}
