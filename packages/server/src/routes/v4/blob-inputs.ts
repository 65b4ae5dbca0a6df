/**
 * A task made at `/v4/api` whose input for an organization is the UUID of an upload to `/blobstream`, as a 4.x client
 * sends it when the blob store is on (docs/vantage6-4.md#uploads-to-blobstream). The run of that organization gets the
 * upload as its input, as the text every node reads (blob-text.ts), and the upload stays in the store, readable at
 * `/blobstream/{uuid}` by whoever may see the run.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../auth/caller.js';
import { ApiError, badRequest } from '../../errors.js';
import { findBlob, runsOfTask, takeBlob } from '../../repositories/blob.js';
import { blobKey, isBlobUuid } from '../../result-store/result-store.js';
import { asRunText } from './blob-text.js';
import { isOwnFreeBlob } from './blob-upload.js';

/** The uploads a task being made takes, by receiving organization; taken once the task is stored. */
const TAKEN = new WeakMap<FastifyRequest, { organizationId: number; uuid: string }[]>();

/** The text of upload `uuid` as a run's input, at most `limit` bytes. */
async function inputText(
  request: FastifyRequest,
  uuid: string,
  limit: number,
  field: string,
): Promise<string> {
  const object = await request.server.ctx.results.get(blobKey(uuid));
  if (!object) throw badRequest(`${field} names blob ${uuid}, which the blob store does not hold.`);
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const part of asRunText(object.stream)) {
      size += part.length;
      if (size > limit)
        throw new ApiError(
          'payload_too_large',
          `${field}: blob ${uuid} is larger, as a run's input, than the ${limit} bytes an input may have (task_body_limit_bytes).`,
        );
      parts.push(part);
    }
  } finally {
    object.stream.destroy();
  }
  return Buffer.concat(parts).toString('latin1');
}

/**
 * Replaces each input of `body.organizations` that is the UUID of an upload with the upload's text. The upload must
 * be the caller's own and not taken by another task; otherwise a 400 names it, and nothing is stored.
 */
export async function blobInputs(request: FastifyRequest, body: Record<string, unknown>): Promise<void> {
  const organizations = body.organizations;
  if (!Array.isArray(organizations) || !request.server.ctx.config.result_store.blob_uploads) return;
  const caller = request.caller as Caller;
  const taken: { organizationId: number; uuid: string }[] = [];
  for (const [index, entry] of organizations.entries()) {
    if (entry === null || typeof entry !== 'object') continue;
    const org = entry as Record<string, unknown>;
    if (typeof org.input !== 'string' || !isBlobUuid(org.input.trim().toLowerCase())) continue;
    const uuid = org.input.trim().toLowerCase();
    const field = `organizations[${index}].input`;
    const blob = await findBlob(request.server.ctx.dbh.db, uuid);
    if (!isOwnFreeBlob(blob, caller) || taken.some((t) => t.uuid === uuid))
      throw new ApiError(
        'validation_failed',
        `${field} names blob ${uuid}, which is not an upload of yours that no task has taken.`,
        {
          extra: { message: { [field]: `blob ${uuid} is not an upload of yours that no task has taken` } },
        },
      );
    org.input = await inputText(request, uuid, request.server.ctx.config.task_body_limit_bytes, field);
    if (typeof org.id === 'number') taken.push({ organizationId: org.id, uuid });
  }
  if (taken.length > 0) TAKEN.set(request, taken);
}

/**
 * Once the task is stored (its answer is on its way), its runs take their uploads, which then no longer expire. A
 * server stopped before leaves them untaken: they expire, and the runs keep their inputs.
 */
export async function takeBlobInputs(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  const taken = TAKEN.get(request);
  if (!taken || reply.statusCode !== 201 || typeof payload !== 'string') return payload;
  TAKEN.delete(request);
  const taskId = (JSON.parse(payload) as { id?: unknown }).id;
  if (typeof taskId !== 'number') return payload;
  const db = request.server.ctx.dbh.db;
  const runs = await runsOfTask(db, taskId);
  for (const { organizationId, uuid } of taken) {
    const run = runs.find((r) => r.organization_id === organizationId);
    if (run) await takeBlob(db, uuid, run.id);
  }
  return payload;
}
