/**
 * Which image `start` runs, and pulling it only when the registry holds a newer one
 * (docs/cli.md#images-and-versions): `--image`, else the configuration's `images.<kind>` or `image`, else `federa/<kind>:<CLI major>`.
 */
import { CliError } from '../exit-codes.js';
import type { Progress } from '../util/progress.js';
import { cliMajor, parseVersion, sameMajor } from '../version.js';
import type { DockerEngine } from './engine.js';

export type ImageKind = 'server' | 'node';

/** Label carrying the Federa version an infrastructure image was built from. */
export const VERSION_LABEL = 'org.opencontainers.image.version';

export function chooseImage(
  kind: ImageKind,
  option: string | undefined,
  config: { image?: unknown; images?: unknown },
): { ref: string; source: 'option' | 'config' | 'default' } {
  if (option) return { ref: option, source: 'option' };
  const images = config.images as Record<string, unknown> | undefined | null;
  const fromImages = images && typeof images[kind] === 'string' ? (images[kind] as string) : undefined;
  const fromConfig =
    fromImages ?? (typeof config.image === 'string' && config.image ? config.image : undefined);
  if (fromConfig) return { ref: fromConfig, source: 'config' };
  return { ref: `federa/${kind}:${cliMajor()}`, source: 'default' };
}

export type PullOutcome = 'up-to-date' | 'pulled' | 'local-fallback';

const errorText = (error: unknown): string => {
  const e = error as { json?: { message?: string }; message?: string };
  return (e.json?.message ?? e.message ?? String(error)).split('\n')[0] ?? '';
};

interface PullEvent {
  status?: string;
  id?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
}

/**
 * Makes sure `ref` is available locally and current. Asks the registry for the digest of `ref`; pulls when it
 * differs from the local copy (or there is none). When the registry cannot be asked or the pull fails, a local
 * copy is used with a warning; without one this is a `docker` error.
 */
export async function ensureImage(
  engine: DockerEngine,
  ref: string,
  progress: Progress,
  options: { timeoutMs?: number } = {},
): Promise<PullOutcome> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const docker = engine.docker;
  const local = await docker
    .getImage(ref)
    .inspect()
    .catch(() => undefined);

  let remoteDigest: string | undefined;
  let problem: string | undefined;
  const check = progress.step(`checking the registry for ${ref}`);
  try {
    const info = await Promise.race([
      docker.getImage(ref).distribution(),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000}s`)), timeoutMs).unref(),
      ),
    ]);
    remoteDigest = info.Descriptor?.digest;
    if (!remoteDigest) problem = 'the registry gave no digest';
  } catch (error) {
    problem = errorText(error);
  }

  if (remoteDigest && local?.RepoDigests?.some((d) => d.endsWith(`@${remoteDigest}`))) {
    check.succeed('the local image is current');
    return 'up-to-date';
  }
  if (problem !== undefined && local !== undefined) {
    check.warn(`registry not reachable (${problem}); using the local image`);
    return 'local-fallback';
  }
  check.succeed(local === undefined ? 'no local copy' : 'the registry has a newer image');

  const pull = progress.step(`pulling ${ref}`);
  try {
    const stream = await docker.pull(ref);
    const layers = new Map<string, string>();
    await new Promise<void>((resolve, reject) => {
      docker.modem.followProgress(
        stream,
        (error: Error | null, events: PullEvent[]) => {
          const failed = error?.message ?? events.find((e) => e.error)?.error;
          if (failed) reject(new Error(failed));
          else resolve();
        },
        (event: PullEvent) => {
          if (event.id) layers.set(event.id, event.status ?? '');
          const done = [...layers.values()].filter((s) => /complete|exists/i.test(s)).length;
          const detail = event.progressDetail?.total
            ? ` ${Math.round(((event.progressDetail.current ?? 0) / event.progressDetail.total) * 100)}%`
            : '';
          pull.update(`${done}/${layers.size} layers${detail}`);
        },
      );
    });
    pull.succeed();
    return 'pulled';
  } catch (error) {
    if (local !== undefined) {
      pull.warn(`${errorText(error)}; using the local image`);
      return 'local-fallback';
    }
    pull.fail(errorText(error));
    throw new CliError(
      'docker',
      `the image ${ref} is neither available locally nor from its registry (${problem ?? errorText(error)}). ` +
        'Build it (scripts/build-infra-images.sh) or pass another one with --image.',
      { cause: error },
    );
  }
}

/** Warns when an image declares a Federa version of another major version than the CLI's. */
export async function warnOnMajorMismatch(
  engine: DockerEngine,
  ref: string,
  progress: Progress,
): Promise<void> {
  const info = await engine.docker
    .getImage(ref)
    .inspect()
    .catch(() => undefined);
  const declared = info?.Config?.Labels?.[VERSION_LABEL];
  const version = declared ? parseVersion(declared) : undefined;
  const mine = { major: cliMajor(), minor: 0, patch: 0, post: 0 };
  if (version && !sameMajor(version, mine)) {
    progress.warn(
      `${ref} holds version ${declared}, another major version than this CLI (${mine.major}); ` +
        'commands and configuration may not match',
    );
  }
}
