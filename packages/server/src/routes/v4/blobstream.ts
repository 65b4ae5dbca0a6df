import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../auth/caller.js';
import { findBlob, type BlobRow } from '../../repositories/blob.js';
import { ApiError, notFound } from '../../errors.js';
import { findRunOutput } from '../../repositories/result.js';
import { blobKey, isBlobUuid, outputKey } from '../../result-store/result-store.js';
import { errorResponses } from '../../serializers/common.js';
import { findVisibleResult } from '../result-access.js';
import { isOwnFreeBlob } from './blob-upload.js';

/**
 * The UUID a 4.x client reads in `result` when `blob_storage_used` is true, for the output of result `id` held in the
 * result store with SHA-256 `sha256`. It names that one output (an output uploaded again gets another), and carries
 * the result's id so that `/blobstream/{uuid}` checks the caller against that result, as `/result/{id}/output` does.
 */
export function blobUuid(id: number, sha256: string): string {
  const s = sha256.toLowerCase();
  const tail = id.toString(16).padStart(12, '0');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${tail}`;
}

const UUID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/;

/**
 * The upload `uuid` (blob-upload.ts) when `caller` may read it: the uploader while no task has taken it; once a
 * task has, whoever may see the run whose input it is, as its input is seen. Anyone else learns nothing: 404.
 */
async function readableBlob(request: FastifyRequest, uuid: string): Promise<BlobRow | undefined> {
  const db = request.server.ctx.dbh.db;
  const blob = await findBlob(db, uuid);
  if (!blob || blob.size === null) return undefined;
  const caller = request.caller as Caller;
  if (blob.result_id === null) return isOwnFreeBlob(blob, caller) ? blob : undefined;
  try {
    await findVisibleResult(db, caller, blob.result_id);
    return blob;
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/**
 * vantage6 4.13's `/blobstream` over Federa's result store (docs/vantage6-4.md#uploads-to-blobstream):
 * `GET /blobstream/{uuid}` streams an upload, or a run's output held there, never whole in memory.
 * `/blobstream/status` says whether uploads are taken (`result_store.blob_uploads`).
 */
export const blobstreamRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/blobstream/status',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary:
          'Whether inputs and outputs may be uploaded to the blob store (vantage6 4.x): as result_store.blob_uploads says',
        response: { 200: Type.Object({ blob_store_enabled: Type.Boolean() }), ...errorResponses },
      },
    },
    async () => ({ blob_store_enabled: ctx.config.result_store.blob_uploads }),
  );

  app.get(
    '/blobstream/:uuid',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary: "Download an upload, or a run's output held in the result store, as a stream (vantage6 4.x)",
        params: Type.Object({ uuid: Type.String({ maxLength: 36 }) }),
        response: {
          200: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { uuid } = request.params;
      if (isBlobUuid(uuid.toLowerCase())) {
        const blob = await readableBlob(request, uuid.toLowerCase());
        const object = blob && (await ctx.results.get(blobKey(blob.uuid)));
        if (object)
          return reply
            .header('content-type', 'application/octet-stream')
            .header('content-length', object.size)
            .send(object.stream);
      }
      const parts = UUID.exec(uuid.toLowerCase());
      const id = parts ? parseInt(parts[5] as string, 16) : NaN;
      // A result id is a 32-bit integer (PostgreSQL refuses a larger one in a query): the tail of any other UUID
      // names no output.
      if (!parts || !Number.isSafeInteger(id) || id < 1 || id > 2 ** 31 - 1) throw notFound('Blob', uuid);
      const result = await findVisibleResult(ctx.dbh.db, request.caller as Caller, id);
      const stored = (await findRunOutput(ctx.dbh.db, result.id)).stored;
      // The UUID of an output replaced since, or of a result without a stored output, names nothing.
      if (!stored || blobUuid(result.id, stored.sha256) !== uuid.toLowerCase()) throw notFound('Blob', uuid);
      const object = await ctx.results.get(outputKey(result.id, stored.sha256));
      if (!object) {
        request.log.error(
          { event: 'result.stored_missing', result_id: result.id, sha256: stored.sha256 },
          'the result store has lost a stored output',
        );
        throw new ApiError('internal');
      }
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', object.size)
        .header('x-federa-sha256', stored.sha256)
        .send(object.stream);
    },
  );
};
