/**
 * Declared outputs read from the algorithm stores a node trusts (`policies.allowed_algorithm_stores`;
 * docs/output-control.md#declared-outputs): the approved algorithm whose image and digest are the run's, and the
 * output its function declares. A store is asked once per image and the answer kept: an approved algorithm never
 * changes (a new version is a new digest), so a known answer is kept for an hour and used past that while the store
 * cannot be reached; that an image has no approved description is kept for a minute only, since it may be approved
 * meanwhile. With no answer at all and no store reachable, the source throws {@link DeclarationUnavailable}: the
 * node then refuses rather than run a function whose output it cannot check.
 */
import { parseOutputDeclaration, type OutputDeclaration } from '@federa/common';

import type { DeclarationQuery, DeclarationSource } from './declaration-source.js';

/** No trusted store could say what a run's function declares, and nothing was known of it before. */
export class DeclarationUnavailable extends Error {}

/** The outputs the functions of one approved image declare (name → declaration or null), from `store`. */
interface Known {
  readonly at: number;
  readonly functions: ReadonlyMap<string, OutputDeclaration | null> | null;
  readonly store: string;
}

export interface StoreDeclarationOptions {
  readonly timeoutMs?: number;
  /** How long an image's declarations are taken as they are. @default 1 hour */
  readonly keepMs?: number;
  /** How long "this store approved no such image" is taken as it is. @default 1 minute */
  readonly keepAbsentMs?: number;
  readonly now?: () => number;
  readonly fetch?: typeof fetch;
}

type Described = { digest?: unknown; functions?: { name?: unknown; output?: unknown }[] };

/** The declarations of the approved algorithm at `image` (`name@sha256:…`) in `store`, or null when none is there. */
async function askStore(
  store: string,
  image: string,
  o: StoreDeclarationOptions,
): Promise<Map<string, OutputDeclaration | null> | null> {
  const digest = image.slice(image.indexOf('@') + 1);
  const url = `${store.replace(/\/+$/, '')}/algorithm?image=${encodeURIComponent(image)}&per_page=100`;
  const answer = await (o.fetch ?? fetch)(url, { signal: AbortSignal.timeout(o.timeoutMs ?? 10_000) });
  if (!answer.ok) throw new Error(`it answered HTTP ${answer.status}`);
  const body = (await answer.json()) as { data?: unknown };
  if (!Array.isArray(body.data)) throw new Error('its answer is not a listing');
  const found = (body.data as Described[]).find((a) => a?.digest === digest);
  if (!found) return null;
  const functions = new Map<string, OutputDeclaration | null>();
  for (const f of Array.isArray(found.functions) ? found.functions : []) {
    if (typeof f?.name !== 'string') continue;
    if (f.output === undefined || f.output === null) functions.set(f.name, null);
    else {
      const parsed = parseOutputDeclaration(f.output);
      // A declaration this node cannot read checks nothing: the function is taken as one the node cannot check.
      if ('error' in parsed)
        throw new Error(`its declared output of '${f.name}' is not one this node reads (${parsed.error})`);
      functions.set(f.name, parsed.declaration);
    }
  }
  return functions;
}

/** A {@link DeclarationSource} over `stores`, asked in their order; the first that approved the image answers. */
export function storeDeclarationSource(
  stores: readonly string[],
  o: StoreDeclarationOptions = {},
): DeclarationSource {
  const now = o.now ?? Date.now;
  const keepMs = o.keepMs ?? 3_600_000;
  const keepAbsentMs = o.keepAbsentMs ?? 60_000;
  const known = new Map<string, Known>();
  const pending = new Map<string, Promise<Known>>();

  const fresh = (k: Known | undefined): k is Known =>
    k !== undefined && now() - k.at < (k.functions ? keepMs : keepAbsentMs);

  const lookUp = async (image: string): Promise<Known> => {
    const problems: string[] = [];
    for (const store of stores) {
      try {
        const functions = await askStore(store, image, o);
        if (functions) return { at: now(), functions, store };
      } catch (error) {
        problems.push(`${store} (${(error as Error).message})`);
      }
    }
    if (problems.length === 0) return { at: now(), functions: null, store: '' };
    // An earlier answer, however old, is better than none: the digest's description has not changed.
    const before = known.get(image);
    if (before) return before;
    throw new DeclarationUnavailable(
      `no algorithm store this node trusts could be asked what ${image} declares: ${problems.join('; ')}`,
    );
  };

  return async (q: DeclarationQuery) => {
    // Only a pinned image is the one a store approved; an unpinned one has no store description.
    if (!q.image.includes('@') || q.fn === undefined) return undefined;
    let k = known.get(q.image);
    if (!fresh(k)) {
      let asking = pending.get(q.image);
      if (!asking) {
        asking = lookUp(q.image).finally(() => pending.delete(q.image));
        pending.set(q.image, asking);
      }
      k = await asking;
      known.set(q.image, k);
    }
    return k.functions?.get(q.fn) ?? undefined;
  };
}
