/**
 * The algorithm store policies of a node (docs/store.md#node-administrators), beside the image allow-list of
 * policy.ts:
 * - `allowed_algorithm_stores`: run only images that one of these stores approved, at the approved digest. The
 *   task's image must be pinned (`image@sha256:…`), so the engine pulls and runs exactly the approved bytes.
 * - `allow_either_whitelist_or_store`: with both the allow-list and stores set, either one admits an image
 *   (otherwise both must).
 * - `allowed_functions`: run only these functions (the input's method).
 * A store that cannot be reached approves nothing: a node with a store-only policy refuses rather than guess.
 * Each refusal names the policy that refused.
 */
import { imageAllowed, type PolicyVerdict } from './policy.js';

export interface StorePolicyConfig {
  readonly allowedAlgorithms: readonly string[] | undefined;
  readonly allowedAlgorithmStores: readonly string[] | undefined;
  readonly allowEitherWhitelistOrStore: boolean;
  readonly allowedFunctions: readonly string[] | undefined;
}

/** Asks a store for the approved algorithms of an image (its public listing); throws when it cannot be asked. */
export type StoreLookup = (storeUrl: string, image: string) => Promise<{ digest: string | null }[]>;

export const httpStoreLookup =
  (timeoutMs: number): StoreLookup =>
  async (storeUrl, image) => {
    const url = `${storeUrl.replace(/\/+$/, '')}/algorithm?image=${encodeURIComponent(image)}&per_page=100`;
    const answer = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!answer.ok) throw new Error(`it answered HTTP ${answer.status}`);
    const body = (await answer.json()) as { data?: unknown };
    if (!Array.isArray(body.data)) throw new Error('its answer is not a listing');
    return body.data.map((a) => ({ digest: typeof a?.digest === 'string' ? a.digest : null }));
  };

const listed = (x: readonly string[] | undefined): x is readonly string[] => x !== undefined && x.length > 0;

/** The method a run's input asks for (`json.` + JSON, or JSON), or undefined when it cannot be read. */
export function inputMethod(input: Buffer): string | undefined {
  let text = input.toString('utf8');
  if (text.startsWith('json.')) text = text.slice(5);
  try {
    const parsed = JSON.parse(text) as { method?: unknown };
    return typeof parsed.method === 'string' ? parsed.method : undefined;
  } catch {
    return undefined;
  }
}

/** Whether one of the stores approved `image` (which must carry its digest); the reason when not. */
async function storeApproved(
  image: string,
  stores: readonly string[],
  lookup: StoreLookup,
): Promise<{ approved: true } | { approved: false; reason: string }> {
  const at = image.indexOf('@');
  if (at < 0)
    return {
      approved: false,
      reason: `policy allowed_algorithm_stores: the image ${image} is not pinned by a digest (image@sha256:…), so no store approval can be checked; run it as a store algorithm`,
    };
  const name = image.slice(0, at);
  const digest = image.slice(at + 1);
  const unreachable: string[] = [];
  for (const store of stores) {
    try {
      const found = await lookup(store, name);
      if (found.some((a) => a.digest === digest)) return { approved: true };
    } catch (error) {
      unreachable.push(`${store} (${(error as Error).message})`);
    }
  }
  if (unreachable.length === stores.length)
    return {
      approved: false,
      reason: `policy allowed_algorithm_stores: no algorithm store could be reached to check ${image} (${unreachable.join('; ')}); this node runs only what its stores approved and does not guess`,
    };
  return {
    approved: false,
    reason: `policy allowed_algorithm_stores: the image ${image} is not approved at this digest in ${stores.join(', ')}${unreachable.length ? ` (unreachable: ${unreachable.join('; ')})` : ''}`,
  };
}

export async function checkStorePolicies(
  task: { readonly image: string },
  input: Buffer,
  config: StorePolicyConfig,
  lookup: StoreLookup,
): Promise<PolicyVerdict> {
  if (listed(config.allowedFunctions)) {
    const method = inputMethod(input);
    if (method === undefined || !config.allowedFunctions.includes(method))
      return {
        allowed: false,
        reason: `policy allowed_functions: the function ${method === undefined ? '(unreadable input)' : `'${method}'`} is not one of ${config.allowedFunctions.join(', ')}`,
      };
  }
  const stores = config.allowedAlgorithmStores;
  const whitelist = config.allowedAlgorithms;
  if (!listed(stores)) {
    if (imageAllowed(task.image, whitelist)) return { allowed: true };
    return {
      allowed: false,
      reason: `policy allowed_algorithms: the image ${task.image} is not in this node's allowed algorithms (${(whitelist ?? []).join(', ')})`,
    };
  }
  const inWhitelist = listed(whitelist) && imageAllowed(task.image, whitelist);
  if (config.allowEitherWhitelistOrStore && inWhitelist) return { allowed: true };
  if (listed(whitelist) && !inWhitelist && !config.allowEitherWhitelistOrStore)
    return {
      allowed: false,
      reason: `policy allowed_algorithms: the image ${task.image} is not in this node's allowed algorithms (${whitelist.join(', ')})`,
    };
  const verdict = await storeApproved(task.image, stores, lookup);
  return verdict.approved ? { allowed: true } : { allowed: false, reason: verdict.reason };
}
