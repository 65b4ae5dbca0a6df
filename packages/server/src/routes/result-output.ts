/**
 * `/result/{id}/output` (docs/large-results.md): a run's output too large for a JSON body, uploaded by its node as a
 * stream into the result store and downloaded by those who may read the result, as a stream. Neither side of the
 * server holds it whole: memory stays flat whatever the size.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Caller } from '../auth/caller.js';
import { ApiError, badRequest, notFound } from '../errors.js';
import { OPEN_RUN_STATUSES, StoredOutputSchema } from '@federa/common';
import { findResult, findRunOutput, type ResultScopeRow } from '../repositories/result.js';
import { setHeldBytes } from '../repositories/result-held.js';
import { oneAtATime, uploadAllowance, type Allowance } from '../result-store/quota.js';
import { ResultStoreFullError, outputKey, type ResultStore } from '../result-store/result-store.js';
import type { StoredOutput } from '../runs/run-update.js';
import { IdParams, errorResponses } from '../serializers/common.js';
import { findAddressedResult, findVisibleResult } from './result-access.js';

/** 400 unless the output `uploaded` names was uploaded whole for result `resultId`. */
export async function checkUploaded(
  store: ResultStore,
  resultId: number,
  uploaded: StoredOutput,
): Promise<void> {
  const object = await store.get(outputKey(resultId, uploaded.sha256));
  object?.stream.destroy();
  if (object?.size !== uploaded.size)
    throw badRequest(
      `Result ${resultId}: no output of ${uploaded.size} bytes with SHA-256 ${uploaded.sha256} was uploaded; upload it (PUT /result/${resultId}/output) before the report that names it.`,
    );
}

/** How long a refused upload's body is still read, so that its node reads the answer (drainThenClose). */
export const REFUSED_BODY_LINGER_MS = 3000;

/**
 * After a refusal sent while the request's body is still coming: reads the rest and throws it away for up to
 * `lingerMs`, then closes the connection. Closed at once, the connection is reset under a node still writing,
 * which then sees EPIPE or ECONNRESET instead of the answer (a full result store looked like a network fault). A
 * node stops sending once it has the answer; a body that ends in time leaves the connection open for reuse.
 */
export function drainThenClose(raw: IncomingMessage, lingerMs: number): void {
  if (raw.complete || raw.destroyed) return;
  const timer = setTimeout(() => raw.socket.destroy(), lingerMs);
  timer.unref();
  const done = (): void => clearTimeout(timer);
  raw.once('end', done).once('close', done);
  // Read by 'readable': an async iterator that stopped early may have left its listener, which makes resume()
  // do nothing.
  raw.on('readable', () => {
    while (raw.read() !== null);
  });
  if (raw.readable) raw.read(0);
}

/**
 * The bytes of `source`, refused past what `allowance` allows, and refused at the end unless their SHA-256 is
 * `sha256` (when given).
 */
export async function* checked(
  source: AsyncIterable<Buffer>,
  sha256: string | undefined,
  allowance: Allowance,
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of source) {
    size += chunk.length;
    if (size > allowance.bytes) throw allowance.refuse(Infinity);
    hash.update(chunk);
    yield chunk;
  }
  const got = hash.digest('hex');
  if (sha256 !== undefined && got !== sha256)
    throw new ApiError(
      'checksum_mismatch',
      `The ${size} bytes received have SHA-256 ${got}, not ${sha256} (x-federa-sha256): nothing was stored; upload the output again.`,
    );
}

export const isOpen = (run: ResultScopeRow): boolean =>
  run.finished_at === null &&
  (run.status === null || (OPEN_RUN_STATUSES as readonly string[]).includes(run.status));

/** 409 naming the status of `run`, a run that has finished or was killed (docs/large-results.md). */
const closed = (run: ResultScopeRow): ApiError =>
  new ApiError(
    'run_closed',
    `Result ${run.id} is '${run.status ?? 'finished'}': no output can be uploaded to it any more.`,
  );

/**
 * Keeps the output of `size` bytes just stored for run `result` under its key. One object per run: it replaces the
 * run's earlier ones (a node cannot fill the store with outputs of one run), unless the run finished or was killed
 * meanwhile, which then keeps what it has and this goes (409); nor does it stay when uploads that ended meanwhile
 * took what the quotas left (507).
 */
export async function keepRunUpload(
  ctx: FastifyInstance['ctx'],
  result: ResultScopeRow,
  sha256: string,
  size: number,
): Promise<void> {
  const db = () => ctx.dbh.db;
  const key = outputKey(result.id, sha256);
  await oneAtATime(async () => {
    const now = await findResult(db(), result.id);
    if (!now || !isOpen(now)) {
      const named = now ? (await findRunOutput(db(), now.id)).stored : null;
      if (named?.sha256 !== sha256) await ctx.results.delete(key);
      throw now ? closed(now) : notFound('Result', result.id);
    }
    const after = await uploadAllowance(db(), ctx.config.result_store, result);
    if (size > after.bytes) {
      await ctx.results.delete(key);
      throw after.refuse(size);
    }
    await ctx.results.deleteRunOutputs(result.id, key);
    await setHeldBytes(db(), result.id, size);
  });
}

export const resultOutputRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = () => ctx.dbh.db;
  // The body is read by the route as a stream (request.raw), never buffered.
  app.addContentTypeParser('application/octet-stream', (_request, _payload, done) => done(null, undefined));

  app.put(
    '/result/:id/output',
    {
      schema: {
        tags: ['result'],
        summary:
          'Upload the output of a run as a stream (nodes only; Content-Type application/octet-stream, header x-federa-sha256); a report then names it in result_stored',
        params: IdParams,
        headers: Type.Object({
          'x-federa-sha256': Type.String({
            pattern: '^[0-9a-f]{64}$',
            description: 'SHA-256 of the body, hex',
          }),
        }),
        response: { 201: StoredOutputSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const limits = ctx.config.result_store;
      const sha256 = request.headers['x-federa-sha256'];
      const started = Date.now();
      let result: ResultScopeRow;
      let size: number;
      try {
        result = await findAddressedResult(db(), request.caller as Caller, request.params.id);
        if (request.headers['content-type']?.split(';')[0]?.trim() !== 'application/octet-stream')
          throw badRequest('The output is sent as Content-Type: application/octet-stream.');
        if (!isOpen(result)) throw closed(result);
        const allowance = await uploadAllowance(db(), limits, result);
        const declared = Number(request.headers['content-length'] ?? 0);
        if (declared > allowance.bytes) throw allowance.refuse(declared);
        // Refused before a byte is read when the store can tell it has no room for the declared size.
        const room = await ctx.results.room?.();
        if (room !== undefined && declared > room)
          throw new ResultStoreFullError(`${declared} bytes declared, ${room} bytes free`);
        // Read without destroying the request when the store stops early: its answer must still reach the node.
        const body = request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
        size = await ctx.results.put(outputKey(result.id, sha256), checked(body, sha256, allowance));
      } catch (error) {
        // A refused upload's node may still be sending: read on for a moment, so that it reads the answer rather
        // than a reset connection.
        drainThenClose(request.raw, REFUSED_BODY_LINGER_MS);
        if (error instanceof ResultStoreFullError)
          throw new ApiError('result_store_full', undefined, { cause: error });
        if (error instanceof ApiError) throw error;
        if (request.raw.destroyed || request.raw.readableAborted) {
          request.log.warn(
            { event: 'result.upload_cut', result_id: request.params.id },
            'an output upload was cut short; nothing was stored',
          );
        }
        throw error;
      }
      await keepRunUpload(ctx, result, sha256, size);
      request.log.info(
        {
          event: 'result.uploaded',
          result_id: result.id,
          bytes: size,
          ms: Date.now() - started,
          store: ctx.results.kind,
        },
        'output uploaded to the result store',
      );
      return reply.status(201).send({ sha256, size });
    },
  );

  app.get(
    '/result/:id/output',
    {
      schema: {
        tags: ['result'],
        summary:
          'Download the output of a run as a stream: the text of `result` (encrypted for the initiator, or base64), whether inline or in the result store',
        params: IdParams,
        response: {
          200: Type.Unsafe<Readable>({
            type: 'string',
            format: 'binary',
            description: 'application/octet-stream; headers Content-Length and x-federa-sha256',
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const result = await findVisibleResult(db(), request.caller as Caller, request.params.id);
      const output = await findRunOutput(db(), result.id);
      let body: Readable;
      let size: number;
      let sha256: string;
      if (output.stored) {
        const object = await ctx.results.get(outputKey(result.id, output.stored.sha256));
        if (!object) {
          request.log.error(
            { event: 'result.stored_missing', result_id: result.id, sha256: output.stored.sha256 },
            'the result store has lost a stored output',
          );
          throw new ApiError('internal');
        }
        ({ size, stream: body } = object);
        sha256 = output.stored.sha256;
      } else {
        if (output.result === null) throw notFound('Output of result', result.id);
        const bytes = Buffer.from(output.result, 'utf8');
        size = bytes.length;
        sha256 = createHash('sha256').update(bytes).digest('hex');
        body = Readable.from([bytes]);
      }
      return reply
        .header('content-type', 'application/octet-stream')
        .header('content-length', size)
        .header('x-federa-sha256', sha256)
        .send(body);
    },
  );
};
