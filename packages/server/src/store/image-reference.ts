import { DescriptionError } from './description-error.js';

/** An image reference split into the image (`registry/name:tag`) and its digest (`sha256:…`), when pinned. */
export function parseImage(reference: string): { image: string; digest: string | null } {
  const at = reference.indexOf('@');
  const image = at < 0 ? reference : reference.slice(0, at);
  const digest = at < 0 ? null : reference.slice(at + 1);
  if (!/^[a-z0-9][a-z0-9._\-/:]*$/i.test(image) || image.length > 500)
    throw new DescriptionError('image', 'is not an image reference (registry/name:tag[@sha256:…])');
  if (digest !== null && !/^sha256:[a-f0-9]{64}$/.test(digest))
    throw new DescriptionError('image', 'has a digest that is not sha256: followed by 64 hex digits');
  return { image, digest };
}
