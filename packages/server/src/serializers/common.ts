import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ErrorSchema } from '@federa/common';
import { withoutIds } from './schema-utils.js';

export {
  DateTime,
  ErrorSchema,
  MessageSchema,
  Nullable,
  NullableReference,
  ReferenceList,
  ReferenceSchema,
} from '@federa/common';

/** Standard error answers, added to every route's response schema. */
export const errorResponses = {
  400: ErrorSchema,
  401: ErrorSchema,
  404: ErrorSchema,
  422: ErrorSchema,
  500: ErrorSchema,
};

/**
 * A paginated listing: a bare array, or `{data, links}` with `include=metadata`. The item appears twice, so the
 * `$id`s inside it are dropped (fast-json-stringify refuses one `$id` that resolves to two schemas).
 */
export const Paginated = <T extends TSchema>(item: T) => {
  const plain = withoutIds(item);
  return Type.Union([
    Type.Array(plain),
    Type.Object({ data: Type.Array(plain), links: Type.Record(Type.String(), Type.String()) }),
  ]);
};

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'resource id' }) });

/**
 * Sends `text`, already the JSON of the route's answer as its response schema describes it (written flat by a
 * serializer of its own, e.g. serializers/collaboration.ts `collaborationJson`, as text or as its UTF-8 bytes):
 * Fastify sends a string or a buffer of a JSON content type as it is.
 */
export function sendJsonText(reply: FastifyReply, text: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
