/**
 * Pull-if-newer (docs/docker.md): ask the registry for the digest of a reference, pull only when it differs from
 * the local image, and fall back to the local image, with a warning, whenever the registry cannot help.
 */
import type Docker from 'dockerode';

import type { ImageInfo, PullResult, RegistryCredentials } from '../container-runtime.js';
import { engineMessage } from '../errors.js';
import { checkImageReference, parseImageRef, sameRepository } from '../image-ref.js';
import { engineDown, isSocketDown, type Engine } from './engine.js';
import type { RegistryAuth } from './registry-auth.js';
import { drainProgress, withTimeout } from './streams.js';

export interface ImagePullContext {
  readonly engine: Engine;
  readonly auth: RegistryAuth;
  /** Time limit for asking a registry about an image (distribution inspect). */
  readonly registryTimeoutMs: number;
  /**
   * Whether the engine can ask a registry for a digest without pulling (`/distribution`). Without it (Podman) every
   * call pulls: the registry is asked for the manifest and only layers the local image lacks are fetched, so an
   * unchanged image costs one round trip; the local image id before and after tells 'pulled' from 'up-to-date'.
   */
  readonly distribution: boolean;
  /** Without `distribution`: why the registry of a reference cannot be reached (then no pull is tried), if so. */
  registryUnreachable?(ref: string): Promise<string | undefined>;
  /** The local image of a reference, or undefined. */
  inspectImage(ref: string): Promise<ImageInfo | undefined>;
}

/** Digest the registry announces for `ref`, or the reason it could not be asked. */
async function remoteDigest(
  ctx: ImagePullContext,
  ref: string,
  auth: Docker.AuthConfig | undefined,
): Promise<{ digest: string } | { problem: string }> {
  try {
    const info = await withTimeout(
      ctx.engine.docker.getImage(ref).distribution(auth !== undefined ? { authconfig: auth } : {}),
      ctx.registryTimeoutMs,
      () => new Error(`no answer within ${ctx.registryTimeoutMs} ms`),
    );
    const digest = info.Descriptor?.digest;
    return typeof digest === 'string' && digest !== ''
      ? { digest }
      : { problem: 'the registry gave no digest' };
  } catch (err) {
    if (isSocketDown(err)) throw engineDown('pullIfNewer', { image: ref }, err);
    return { problem: engineMessage(err) };
  }
}

/** Pulls `ref`; resolves with the engine's error message when the pull failed. */
async function pull(
  ctx: ImagePullContext,
  ref: string,
  auth: Docker.AuthConfig | undefined,
): Promise<string | undefined> {
  try {
    const stream = await ctx.engine.docker.pull(ref, auth !== undefined ? { authconfig: auth } : {});
    return await drainProgress(stream);
  } catch (err) {
    if (isSocketDown(err)) throw engineDown('pullIfNewer', { image: ref }, err);
    return engineMessage(err);
  }
}

/** See ContainerRuntime.pullIfNewer. */
export async function pullIfNewer(
  ctx: ImagePullContext,
  ref: string,
  credentials?: RegistryCredentials,
): Promise<PullResult> {
  checkImageReference('pullIfNewer', ref);
  const logger = ctx.engine.logger;
  const wanted = parseImageRef(ref);
  const auth = ctx.auth.authFor(ref, credentials);
  const local = await ctx.inspectImage(ref);

  // A reference by digest names immutable content: a local copy is by definition current.
  if (local !== undefined && wanted.digest !== undefined) return { action: 'up-to-date', imageId: local.id };

  if (!ctx.distribution) return pullAndCompare(ctx, ref, auth, local);

  const remote = await remoteDigest(ctx, ref, auth);
  if ('digest' in remote) {
    const current =
      local?.repoDigests.some((rd) => {
        const parsed = parseImageRef(rd);
        return parsed.digest === remote.digest && sameRepository(parsed, wanted);
      }) ?? false;
    if (current && local !== undefined) {
      return { action: 'up-to-date', remoteDigest: remote.digest, imageId: local.id };
    }
  }

  const reason = 'problem' in remote ? remote.problem : undefined;
  if (reason !== undefined && local !== undefined) {
    const warning = `could not ask the registry about ${ref} (${reason}); using the local image`;
    logger?.warn({ image: ref }, warning);
    return { action: 'local-fallback', warning, imageId: local.id };
  }

  // Remote differs, or no local copy (then try a pull even when the inspect failed: some registries refuse it).
  const pullError = await pull(ctx, ref, auth);
  const after = await ctx.inspectImage(ref);
  const remoteDigestValue = 'digest' in remote ? remote.digest : undefined;
  const withDigest = remoteDigestValue !== undefined ? { remoteDigest: remoteDigestValue } : {};
  if (pullError === undefined && after !== undefined) {
    logger?.debug({ image: ref, digest: remoteDigestValue }, 'image pulled');
    return { action: 'pulled', imageId: after.id, ...withDigest };
  }
  const why = pullError ?? reason ?? 'unknown reason';
  if (local !== undefined) {
    const warning = `pulling ${ref} failed (${why}); using the local image`;
    logger?.warn({ image: ref }, warning);
    return { action: 'local-fallback', warning, imageId: local.id, ...withDigest };
  }
  const warning = `image ${ref} is neither available locally nor from its registry (${why})`;
  logger?.warn({ image: ref }, warning);
  return { action: 'missing', warning };
}

/** Pull-if-newer for an engine without `/distribution`: pull, then compare the local image before and after. */
async function pullAndCompare(
  ctx: ImagePullContext,
  ref: string,
  auth: Docker.AuthConfig | undefined,
  local: ImageInfo | undefined,
): Promise<PullResult> {
  const logger = ctx.engine.logger;
  const unreachable = local !== undefined ? await ctx.registryUnreachable?.(ref) : undefined;
  if (unreachable !== undefined && local !== undefined) {
    const warning = `could not ask the registry about ${ref} (${unreachable}); using the local image`;
    logger?.warn({ image: ref }, warning);
    return { action: 'local-fallback', warning, imageId: local.id };
  }
  const pullError = await pull(ctx, ref, auth);
  const after = await ctx.inspectImage(ref);
  if (pullError === undefined && after !== undefined) {
    if (local !== undefined && local.id === after.id) return { action: 'up-to-date', imageId: after.id };
    logger?.debug({ image: ref }, 'image pulled');
    return { action: 'pulled', imageId: after.id };
  }
  const why = pullError ?? 'unknown reason';
  if (local !== undefined) {
    const warning = `pulling ${ref} failed (${why}); using the local image`;
    logger?.warn({ image: ref }, warning);
    return { action: 'local-fallback', warning, imageId: local.id };
  }
  const warning = `image ${ref} is neither available locally nor from its registry (${why})`;
  logger?.warn({ image: ref }, warning);
  return { action: 'missing', warning };
}
