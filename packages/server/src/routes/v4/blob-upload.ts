/**
 * `POST /blobstream` (docs/vantage6-4.md#uploads-to-blobstream): vantage6 4.13's upload of a run's input or output,
 * streamed into Federa's result store under the store's limits and quotas, never whole in memory. The upload gets a
 * UUID; a task takes it as an input (blob-inputs.ts), a node's report as its run's output (blob-results.ts), and one
 * no task takes expires (result-store/blob-sweep.ts).
 */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { can, type Caller } from '../../auth/caller.js';
import { nowStored } from '../../db/stored-time.js';
import { ApiError, forbidden } from '../../errors.js';
import { deleteBlobRow, findBlob, insertBlob, setBlobSize, type BlobRow } from '../../repositories/blob.js';
import { sweepBlobs } from '../../result-store/blob-sweep.js';
import { oneAtATime, uploadAllowance, type UploadOwner } from '../../result-store/quota.js';
import { ResultStoreFullError, blobKey } from '../../result-store/result-store.js';
import { errorResponses } from '../../serializers/common.js';
import { REFUSED_BODY_LINGER_MS, checked, drainThenClose } from '../result-output.js';

/** 501 when `result_store.blob_uploads` is off. */
export function checkBlobUploads(request: FastifyRequest): void {
  if (!request.server.ctx.config.result_store.blob_uploads)
    throw new ApiError(
      'not_configured',
      'Uploads to the blob store are off on this server (result_store.blob_uploads): send inputs and outputs inline.',
    );
}

/** The uploader a blob row names for `caller` (a container: its node). */
export const uploaderOf = (caller: Caller): { uploader_kind: string; uploader_id: number } => ({
  uploader_kind: caller.kind,
  uploader_id: caller.id,
});

/**
 * Whether `blob` is an upload of `caller` that no task has taken yet: a user's own, or one of the caller's node or
 * of its containers.
 */
export function isOwnFreeBlob(blob: BlobRow | undefined, caller: Caller): blob is BlobRow {
  if (!blob || blob.size === null || blob.result_id !== null) return false;
  if (caller.kind === 'user') return blob.uploader_kind === 'user' && blob.uploader_id === caller.id;
  return blob.uploader_kind !== 'user' && blob.uploader_id === caller.id;
}

export const blobUploadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;
  // Uploads no task took expire (result_store.blob_expiry_minutes): looked for at a tenth of that, at most every 10
  // minutes, and at start (a server stopped in the middle of an upload leaves its row).
  const expiryMs = ctx.config.result_store.blob_expiry_minutes * 60_000;
  let sweeping: Promise<void> = Promise.resolve();
  const sweep = (): void => {
    sweeping = sweeping.then(async () => {
      try {
        const report = await sweepBlobs({ db, store: ctx.results, expiryMs });
        if (report.removed > 0)
          app.log.info({ event: 'blob_store.swept', ...report }, `${report.removed} expired uploads removed`);
      } catch (error) {
        app.log.error({ event: 'blob_store.sweep_failed', err: error }, 'removing expired uploads failed');
      }
    });
  };
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    sweep();
    timer = setInterval(sweep, Math.min(expiryMs / 10, 600_000));
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await sweeping;
  });

  // The body is read by the route as a stream (request.raw), never buffered.
  app.addContentTypeParser('application/octet-stream', (_request, _payload, done) => done(null, undefined));

  app.post(
    '/blobstream',
    {
      schema: {
        tags: ['vantage6 4.x'],
        summary:
          "Upload a run's input or output to the result store as a stream (vantage6 4.x; Content-Type application/octet-stream): answers its uuid",
        response: { 201: Type.Object({ uuid: Type.String() }), ...errorResponses },
      },
    },
    async (request, reply) => {
      const caller = request.caller as Caller;
      const uuid = randomUUID();
      const key = blobKey(uuid);
      const owner: UploadOwner = {
        id: 0,
        organization_id: caller.organizationId,
        collaboration_id: caller.kind === 'user' ? null : caller.collaborationId,
      };
      let size: number;
      let inserted = false;
      try {
        checkBlobUploads(request);
        if (caller.kind === 'user' && !can(caller, 'task.c_glo') && !can(caller, 'task.c_org'))
          throw forbidden(
            'You cannot upload to the blob store: that takes the permission to create tasks, which you lack.',
          );
        if (request.headers['content-type']?.split(';')[0]?.trim() !== 'application/octet-stream')
          throw new ApiError('bad_request', 'An upload is sent as Content-Type: application/octet-stream.');
        const allowance = await uploadAllowance(db(), ctx.config.result_store, owner);
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > allowance.bytes) throw allowance.refuse(declared);
        const room = await ctx.results.room?.();
        if (room !== undefined && declared > room)
          throw new ResultStoreFullError(`${declared} bytes declared, ${room} bytes free`);
        // The row first: a server stopped in the middle of the upload leaves a row the expiry sweep finds.
        await insertBlob(db(), {
          uuid,
          ...uploaderOf(caller),
          organization_id: owner.organization_id,
          collaboration_id: owner.collaboration_id,
          created_at: nowStored(),
        });
        inserted = true;
        const body = request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
        size = await ctx.results.put(key, checked(body, undefined, allowance));
      } catch (error) {
        drainThenClose(request.raw, REFUSED_BODY_LINGER_MS);
        if (inserted) await deleteBlobRow(db(), uuid);
        if (request.raw.destroyed || request.raw.readableAborted)
          request.log.warn(
            { event: 'blob.upload_cut', uuid },
            'an upload to the blob store was cut short; nothing was stored',
          );
        if (error instanceof ResultStoreFullError)
          throw new ApiError('result_store_full', undefined, { cause: error });
        throw error;
      }
      // Counted one upload at a time, as outputs are: uploads that ended together cannot pass a quota between them.
      await oneAtATime(async () => {
        const after = await uploadAllowance(db(), ctx.config.result_store, owner);
        const row = await findBlob(db(), uuid);
        if (!row || size > after.bytes) {
          await ctx.results.delete(key);
          await deleteBlobRow(db(), uuid);
          if (!row) throw new ApiError('internal');
          throw after.refuse(size);
        }
        await setBlobSize(db(), uuid, size);
      });
      request.log.info(
        { event: 'blob.uploaded', uuid, bytes: size, uploader: caller.kind, store: ctx.results.kind },
        'upload stored in the blob store',
      );
      return reply.status(201).send({ uuid });
    },
  );
};
