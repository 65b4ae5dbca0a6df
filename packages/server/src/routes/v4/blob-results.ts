/**
 * A vantage6 4.x node's report of a run whose `result` is the UUID of its upload to `/blobstream`
 * (docs/vantage6-4.md#uploads-to-blobstream): the upload becomes the run's output held in the result store, as if the
 * node had uploaded it to `PUT /result/{id}/output` (docs/large-results.md), and the report names it.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../auth/caller.js';
import { ApiError } from '../../errors.js';
import { deleteBlobRow, findBlob } from '../../repositories/blob.js';
import { uploadAllowance } from '../../result-store/quota.js';
import { ResultStoreFullError, blobKey, isBlobUuid, outputKey } from '../../result-store/result-store.js';
import { findAddressedResult } from '../result-access.js';
import { checked, keepRunUpload } from '../result-output.js';
import { asRunText } from './blob-text.js';
import { isOwnFreeBlob } from './blob-upload.js';

/** The text of upload `uuid` as a run's output, as a stream. */
async function* textOf(request: FastifyRequest, uuid: string): AsyncGenerator<Buffer> {
  const object = await request.server.ctx.results.get(blobKey(uuid));
  if (!object) throw new ApiError('bad_request', `Blob ${uuid} is not held by the blob store.`);
  try {
    yield* asRunText(object.stream);
  } finally {
    object.stream.destroy();
  }
}

/**
 * When the report's `result` names an upload of the reporting node (or its algorithm): stores it as the run's
 * output and makes the report name it (`result_stored`). Another upload, or one taken already, is a 400 naming it.
 */
export async function blobResult(request: FastifyRequest, body: Record<string, unknown>): Promise<void> {
  const { ctx } = request.server;
  if (typeof body.result !== 'string' || !ctx.config.result_store.blob_uploads) return;
  const uuid = body.result
    .trim()
    .replace(/^['"]|['"]$/g, '')
    .toLowerCase();
  if (!isBlobUuid(uuid)) return;
  const caller = request.caller as Caller;
  const blob = await findBlob(ctx.dbh.db, uuid);
  if (!isOwnFreeBlob(blob, caller))
    throw new ApiError(
      'validation_failed',
      `field 'result' names blob ${uuid}, which is not an upload of this node.`,
      {
        extra: { message: { result: `blob ${uuid} is not an upload of this node` } },
      },
    );
  const run = await findAddressedResult(ctx.dbh.db, caller, Number((request.params as { id: string }).id));
  // The text's checksum names it in the store: read once to learn it, once to store it.
  const hash = createHash('sha256');
  for await (const part of textOf(request, uuid)) hash.update(part);
  const sha256 = hash.digest('hex');
  // The upload counts in the quotas until it is removed below, once its output is kept.
  const allowance = await uploadAllowance(ctx.dbh.db, ctx.config.result_store, run);
  let size: number;
  try {
    size = await ctx.results.put(
      outputKey(run.id, sha256),
      checked(textOf(request, uuid), sha256, allowance),
    );
  } catch (error) {
    if (error instanceof ResultStoreFullError)
      throw new ApiError('result_store_full', undefined, { cause: error });
    throw error;
  }
  await keepRunUpload(ctx, run, sha256, size);
  await ctx.results.delete(blobKey(uuid));
  await deleteBlobRow(ctx.dbh.db, uuid);
  delete body.result;
  body.result_stored = { sha256, size };
}
