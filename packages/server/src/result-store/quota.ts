import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { ApiError } from '../errors.js';
import { blobBytes } from '../repositories/blob.js';
import { heldBytes, heldBytesOf } from '../repositories/result-held.js';

const MIB = 1024 * 1024;

/** `result_store` of the server configuration: the largest output and the quotas, in MiB. */
export interface StoreLimits {
  max_mb: number;
  node_quota_mb: number;
  total_quota_mb: number;
}

/**
 * The run an upload is for: its id and the node (organization in a collaboration) it belongs to. An upload to
 * `/blobstream` has no run yet (`id` 0), nor a collaboration when a user sends it.
 */
export interface UploadOwner {
  id: number;
  organization_id: number;
  collaboration_id: number | null;
}

/** How many bytes an upload may bring, and the refusal once it brings more. */
export interface Allowance {
  bytes: number;
  /** 413 when the size of one output is what limits, 507 naming the quota otherwise. */
  refuse: (size: number) => ApiError;
}

/**
 * What an upload for `run` may bring (docs/large-results.md#limits): at most `max_mb`, and no more than the node's
 * and the whole store's quotas leave. The run's own earlier upload counts as free: a kept upload replaces it.
 */
export async function uploadAllowance(
  db: Kysely<Database>,
  limits: StoreLimits,
  run: UploadOwner,
): Promise<Allowance> {
  const own = await heldBytesOf(db, run.id);
  // Uploads to /blobstream count too (docs/vantage6-4.md#uploads-to-blobstream): those of the node and its containers
  // in the node's quota.
  const outputs = await heldBytes(db, run.organization_id, run.collaboration_id ?? 0);
  const blobs = await blobBytes(db, run.organization_id, run.collaboration_id ?? 0);
  const held = { node: outputs.node + blobs.node, total: outputs.total + blobs.total };
  const max = Math.floor(limits.max_mb * MIB);
  const nodeLeft = Math.floor(limits.node_quota_mb * MIB) - (held.node - own);
  const totalLeft = Math.floor(limits.total_quota_mb * MIB) - (held.total - own);
  const bytes = Math.max(0, Math.min(max, nodeLeft, totalLeft));
  const refuse = (size: number): ApiError => {
    if (size > max && max <= Math.min(nodeLeft, totalLeft))
      return new ApiError('payload_too_large', `The output is larger than ${max} bytes.`);
    const [key, quota, used] =
      nodeLeft <= totalLeft
        ? ['result_store.node_quota_mb', limits.node_quota_mb, held.node - own]
        : ['result_store.total_quota_mb', limits.total_quota_mb, held.total - own];
    const whose =
      key === 'result_store.node_quota_mb'
        ? `the outputs of this node (organization ${run.organization_id} in collaboration ${run.collaboration_id})`
        : 'all outputs';
    return new ApiError(
      'result_store_quota',
      `The result store's quota ${key} (${quota} MiB) for ${whose} would be passed: ${used} bytes are held, and this upload brings ${size === Infinity ? 'more than is left' : `${size} bytes`}. Nothing was stored; retry once outputs are removed (tasks deleted).`,
    );
  };
  return { bytes, refuse };
}

let last: Promise<unknown> = Promise.resolve();

/**
 * Runs `keep` (the last check of an upload against the quotas, and recording what it holds) after those of the
 * uploads that ended before it on this instance: uploads that end at the same moment are counted one by one.
 */
export function oneAtATime<T>(keep: () => Promise<T>): Promise<T> {
  const next = last.then(keep, keep);
  last = next.catch(() => undefined);
  return next;
}
