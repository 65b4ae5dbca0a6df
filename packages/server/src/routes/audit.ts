/**
 * `GET /audit` and `GET /audit/verify` (docs/audit.md, "Reading it in the web UI"): the server's audit log for the
 * root user (every rule), searched by who, what and when, and the chain's verification, read from the files this
 * server writes. Entries are read from disk at each request (newest first), so the answer costs a read of the log.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { auditVerifyOutcome, chainFiles } from '@federa/common';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Caller } from '../auth/caller.js';
import { holdsEveryRule } from '../auth/rules.js';
import { ApiError, badRequest, forbidden } from '../errors.js';
import { errorResponses } from '../serializers/common.js';

const AuditQuery = Type.Object({
  event: Type.Optional(
    Type.String({ maxLength: 100, description: 'events starting with this, e.g. `task.` or `user.login`' }),
  ),
  actor_kind: Type.Optional(
    Type.Union([Type.Literal('user'), Type.Literal('node'), Type.Literal('container')]),
  ),
  actor_id: Type.Optional(Type.Integer({ minimum: 1, description: 'the id of the user, node or container' })),
  from: Type.Optional(
    Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time: entries at or after it' }),
  ),
  till: Type.Optional(
    Type.String({ maxLength: 40, description: 'ISO 8601 date or date-time: entries at or before it' }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 500,
      description: 'the newest this many matching entries (default 100); narrow older ones with till',
    }),
  ),
});

const AuditPage = Type.Object({
  total: Type.Integer({ description: 'entries matching, also those beyond limit' }),
  entries: Type.Array(Type.Object({}, { additionalProperties: true }), {
    description: 'the entries as written (docs/audit.md, "For server admins"), newest first',
  }),
});

const Verdict = Type.Object({
  ok: Type.Boolean({ description: 'every chain intact' }),
  text: Type.String({
    description: 'the verdict of `vserver audit verify`, files named within the audit folder',
  }),
});

/**
 * Only the root user reads the audit log: it names every caller and what they did. The answer is never kept by
 * the read cache (http/read-cache.ts), which follows the database: the log is in files and grows without it.
 */
function audited(ctx: AppContext, request: FastifyRequest): string {
  request.readCacheKey = null;
  const caller = request.caller as Caller;
  if (!holdsEveryRule(caller.rules))
    throw forbidden('Only the root user (every rule) may read the audit log.');
  if (!ctx.audit) throw new ApiError('not_configured', 'This server keeps no audit log.');
  return dirname(ctx.audit.file);
}

function time(name: string, text: string): number {
  const t = Date.parse(text);
  if (Number.isNaN(t))
    throw badRequest(`'${name}' must be an ISO 8601 date or date-time, e.g. 2026-01-31T12:00:00Z.`);
  return t;
}

interface Entry {
  at?: unknown;
  event?: unknown;
  actor?: { kind?: unknown; id?: unknown } | null;
}

export const auditRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/audit',
    {
      schema: {
        tags: ['audit'],
        summary: "Root only: the server's audit log, newest first, by event, actor and time",
        querystring: AuditQuery,
        response: { 200: AuditPage, ...errorResponses },
      },
    },
    async (request) => {
      const dir = audited(ctx, request);
      const q = request.query;
      const limit = q.limit ?? 100;
      const from = q.from ? time('from', q.from) : -Infinity;
      const till = q.till ? time('till', q.till) : Infinity;
      const matches: Entry[] = [];
      for (const files of (await chainFiles(dir)).values())
        for (const file of files)
          for (const line of (await readFile(file, 'utf8')).split('\n')) {
            if (!line) continue;
            let entry: Entry;
            try {
              entry = JSON.parse(line) as Entry;
            } catch {
              continue; // a torn last line: `GET /audit/verify` reports it
            }
            const at = typeof entry.at === 'string' ? Date.parse(entry.at) : NaN;
            if (q.event && !(typeof entry.event === 'string' && entry.event.startsWith(q.event))) continue;
            if (q.actor_kind && entry.actor?.kind !== q.actor_kind) continue;
            if (q.actor_id !== undefined && entry.actor?.id !== q.actor_id) continue;
            if ((q.from || q.till) && !(at >= from && at <= till)) continue;
            matches.push(entry);
          }
      matches.sort((a, b) => String(b.at).localeCompare(String(a.at)));
      return { total: matches.length, entries: matches.slice(0, limit) as Record<string, unknown>[] };
    },
  );

  app.get(
    '/audit/verify',
    {
      schema: {
        tags: ['audit'],
        summary: "Root only: verify the server's audit log (every chain, from its first entry)",
        response: { 200: Verdict, ...errorResponses },
      },
    },
    async (request) => {
      const dir = audited(ctx, request);
      const outcome = await auditVerifyOutcome(dir);
      // Files are named within the audit folder: the server's paths are not the caller's business.
      const text = outcome.text.split(`${dir}/`).join('').split(dir).join('audit').trim();
      return { ok: outcome.reason === 'ok', text };
    },
  );
};
