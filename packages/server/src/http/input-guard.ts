import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/**
 * Limits every route's input, whatever the route (docs/security.md, "Input limits"):
 *
 * - {@link limitRouteSchemas} gives every string of a body, query or path schema a `maxLength` and every integer a
 *   range that fits a 32-bit database column, unless the route set its own; so a 10 MiB `firstname`, an id above
 *   2^31 or `page=1e400` is a 400 naming the field, not a 500 from the database.
 * - {@link guardBody} and {@link guardParameters} refuse NUL characters and numbers that are not finite anywhere in
 *   the input, and LIKE filters that end in an unescaped backslash, naming the field.
 */

export interface InputLimits {
  /** Names, e-mail addresses, filters and every other string. */
  stringChars: number;
  /** Free text: descriptions, public keys. */
  textChars: number;
  /** Task input and results (the data of a run): up to the route's body limit. */
  dataChars: number;
}

/** 32-bit signed integers: the id and count columns of both dialects. */
export const INT_MAX = 2_147_483_647;
export const INT_MIN = -2_147_483_648;

/** The fields that carry the data of a run, by route; they get {@link InputLimits.dataChars}. */
export const DATA_FIELDS: Record<string, readonly string[]> = {
  'POST /task': ['organizations[].input'],
  'PATCH /result/:id': ['result', 'log'],
};

/** Fields of free text, wherever they are. */
const TEXT_FIELDS = new Set(['description', 'public_key']);

/**
 * Fields checked by their route, with a limit and a message of its own: the body limit is their only generic
 * limit (`image`: POST /task says what a valid image name is, at most 512 characters).
 */
const SELF_CHECKED_FIELDS = new Set(['image']);

type Schema = Record<string | symbol, unknown>;

/** A deep copy that keeps symbol keys (TypeBox marks its schemas with them). */
function copy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Schema = {};
  for (const key of Reflect.ownKeys(value)) out[key] = copy((value as Schema)[key]);
  return out as T;
}

const hasType = (schema: Schema, type: string): boolean =>
  schema.type === type || (Array.isArray(schema.type) && schema.type.includes(type));

/** Adds the limits to a schema (a copy), `path` naming the field like `organizations[].input`. */
function limit(schema: Schema, path: string, charsFor: (path: string) => number, likes: string[]): void {
  if (hasType(schema, 'string') && schema.maxLength === undefined) schema.maxLength = charsFor(path);
  if (hasType(schema, 'integer') || hasType(schema, 'number')) {
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = INT_MAX;
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = INT_MIN;
  }
  if (typeof schema.description === 'string' && /\bLIKE\b/.test(schema.description) && path !== '')
    likes.push(path);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) for (const s of list) limit(s as Schema, path, charsFor, likes);
  }
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties)
    for (const [name, s] of Object.entries(properties))
      limit(s, path ? `${path}.${name}` : name, charsFor, likes);
  const items = schema.items;
  if (Array.isArray(items)) for (const s of items) limit(s as Schema, `${path}[]`, charsFor, likes);
  else if (items && typeof items === 'object') limit(items as Schema, `${path}[]`, charsFor, likes);
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object') limit(extra as Schema, `${path}.*`, charsFor, likes);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Query parameters that are LIKE patterns (see {@link guardParameters}). */
    likeParameters?: string[];
  }
}

/**
 * Gives a route's body, query and path schemas their limits (on copies: schema objects are shared between routes).
 * `key` is `METHOD /path` relative to the API path.
 */
export function limitRouteSchemas(route: RouteOptions, key: string, limits: InputLimits): void {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (!schema) return;
  const data = new Set(DATA_FIELDS[key] ?? []);
  const charsFor = (path: string): number => {
    if (data.has(path)) return limits.dataChars;
    const last = path.split('.').pop()?.replace(/\[\]$/, '') ?? '';
    if (SELF_CHECKED_FIELDS.has(last)) return limits.dataChars;
    return TEXT_FIELDS.has(last) ? limits.textChars : limits.stringChars;
  };
  const likes: string[] = [];
  for (const part of ['body', 'querystring', 'params'] as const) {
    const s = schema[part];
    if (!s || typeof s !== 'object') continue;
    const limited = copy(s) as Schema;
    limit(limited, '', charsFor, part === 'querystring' ? likes : []);
    schema[part] = limited;
  }
  if (likes.length > 0)
    route.config = {
      ...(route.config ?? {}),
      likeParameters: likes.map((p) => p.replace(/\[\]$/, '')),
    };
}

const NUL_TEXT = 'contains a NUL character (\\u0000); control characters are not allowed';

/** The first NUL character or non-finite number in a parsed input, as `[field, problem]`. */
function findBadValue(value: unknown, path: string, depth = 0): [string, string] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? [path, NUL_TEXT] : null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : [path, 'is not a finite number'];
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findBadValue(value[i], path ? `${path}.${i}` : String(i), depth + 1);
      if (bad) return bad;
    }
    return null;
  }
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key.includes('\u0000')) return [path ? `${path}.${key}` : key, NUL_TEXT];
    const bad = findBadValue(v, path ? `${path}.${key}` : key, depth + 1);
    if (bad) return bad;
  }
  return null;
}

/** A LIKE pattern must not end in an escape character: PostgreSQL refuses such a pattern. */
const endsInEscape = (pattern: string): boolean => /(^|[^\\])(\\\\)*\\$/.test(pattern);

/** The 400 answer naming the field, in the form of the schema validation errors. */
function refuse(reply: FastifyReply, where: string, field: string, text: string): FastifyReply {
  return reply
    .status(400)
    .send({ msg: `${where} '${field}' ${text}`, code: 'validation_failed', message: { [field]: text } });
}

/**
 * `preValidation` hook: the body as parsed, before the schema coerces a number into a string (`1e400` parses as
 * Infinity and would be stored as the text "Infinity").
 */
export async function guardBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const bad = findBadValue(request.body, '');
  if (bad) await refuse(reply, 'field', bad[0] || 'body', bad[1]);
}

const POSITIVE_ID = /^[0-9]{1,10}$/;
const ID_TEXT = `must be a positive integer (1 to ${INT_MAX}) written in decimal digits`;
const ID_OR_ZERO_TEXT = `must be an integer from 0 to ${INT_MAX} written in decimal digits`;

/**
 * `preValidation` hook: every integer path parameter (the ids) as the client wrote it must be decimal digits naming
 * 1 to {@link INT_MAX} (0 too where the schema's minimum is 0: `GET /algorithmstore/0`, this server's own store).
 * The schema would coerce `Infinity`, `1e3`, `0x10` or a blank into a number first.
 */
export async function guardPathIds(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const schema = (request.routeOptions.schema?.params ?? undefined) as
    { properties?: Record<string, Schema> } | undefined;
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, s] of Object.entries(schema?.properties ?? {})) {
    if (!hasType(s, 'integer')) continue;
    const raw = params[name];
    const least = (s as { minimum?: unknown }).minimum === 0 ? 0 : 1;
    if (typeof raw === 'string' && POSITIVE_ID.test(raw) && Number(raw) >= least && Number(raw) <= INT_MAX)
      continue;
    await refuse(reply, 'path parameter', name, least === 0 ? ID_OR_ZERO_TEXT : ID_TEXT);
    return;
  }
}

/**
 * `preHandler` hook: path and query parameters once the schema has turned them into numbers (`page=1e400` and
 * `page=Infinity` become Infinity, which the validator lets through), and the LIKE filters.
 */
export async function guardParameters(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  for (const [value, where] of [
    [request.params, 'path parameter'],
    [request.query, 'query parameter'],
  ] as const) {
    const bad = findBadValue(value, '');
    if (bad) {
      await refuse(reply, where, bad[0], bad[1]);
      return;
    }
  }
  const likes = request.routeOptions.config.likeParameters;
  if (likes) {
    const query = (request.query ?? {}) as Record<string, unknown>;
    for (const name of likes) {
      const raw = query[name];
      for (const v of Array.isArray(raw) ? raw : [raw])
        if (typeof v === 'string' && endsInEscape(v)) {
          await refuse(
            reply,
            'query parameter',
            name,
            'is a LIKE pattern that ends in an unescaped backslash; write \\\\ for a backslash',
          );
          return;
        }
    }
  }
}
