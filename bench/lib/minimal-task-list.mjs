// The hand-written minimum of `GET /api/task?page=1&per_page=10` on Federa's SQLite file: Fastify, better-sqlite3
// and the same answer byte for byte, with nothing else. It is a second ceiling for bench/api-throughput: what this
// answer costs on this stack at least, so that Federa's uncached figure can be read against the floor of the
// tools it is built with as well as against bare Fastify's hello-world.
//
// It does what cannot be left out: checks the token's HS256 signature, reads the caller from the database, lists
// one page with the count, reads the page's tasks with their sub-tasks and their runs' statuses, and writes them
// with a compiled response schema. It leaves out what Federa adds: sessions, rules and scopes, the security
// headers, the audit and time-out hooks, page links, the read cache and every check of the input.
import { createHmac, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import Database from 'better-sqlite3';

const ref = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    link: { type: 'string' },
    methods: { type: 'array', items: { type: 'string' } },
  },
};
const nullable = (schema) => ({ anyOf: [schema, { type: 'null' }] });
const task = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    image: { type: 'string' },
    database: { type: ['string', 'null'] },
    run_id: { type: 'integer' },
    initiator: { type: 'integer' },
    init_org: { type: 'integer' },
    init_user: { type: ['integer', 'null'] },
    collaboration: nullable(ref),
    parent: nullable(ref),
    children: nullable({ type: 'array', items: ref }),
    complete: { type: 'boolean' },
    status: { type: 'string' },
    finished_at: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    cancel_on_failure: { type: 'boolean' },
    results: nullable({ type: 'array', items: ref }),
  },
};

const OPEN = ['active', 'initializing', 'pending'];
const statusOf = (statuses) => {
  if (statuses.length === 0) return 'completed';
  if (statuses.every((s) => s === null)) return 'unknown';
  if (statuses.some((s) => s !== null && !OPEN.includes(s) && s !== 'completed')) return 'failed';
  return OPEN.find((s) => statuses.includes(s)) ?? 'completed';
};
const apiTime = (s) => (s === null ? null : /\.0*$/.test(s) ? `${s.split('.')[0]}+00:00` : `${s}+00:00`);
const ids = (text) =>
  text
    ? text
        .split(',')
        .map(Number)
        .sort((a, b) => a - b)
    : [];

/** Starts the minimal server on `file` (Federa's SQLite database); resolves with its base URL and `close()`. */
export async function startMinimalTaskList(file, secret) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  const user = db.prepare(
    `select u.id, u.organization_id, (select string_agg(rr.rule_id, ',') from user_role ur
       join role_rule rr on rr.role_id = ur.role_id where ur.user_id = u.id) as rules from "user" u where u.id = ?`,
  );
  const page = db.prepare(
    'select id, (select count(*) from task) as total from task order by id desc limit ? offset ?',
  );
  const marks = (n) => Array(n).fill('?').join(',');
  const tasks = new Map();
  const groups = new Map();
  const tasksOf = (n) =>
    tasks.get(n) ??
    tasks
      .set(
        n,
        db.prepare(`select t.*, (select string_agg(c.id, ',') from task c where c.parent_id = t.id) as child_ids
         from task t where t.id in (${marks(n)})`),
      )
      .get(n);
  const groupsOf = (n) =>
    groups.get(n) ??
    groups
      .set(
        n,
        db.prepare(`select task_id, status, string_agg(id, ',') as ids, count(*) as n, count(finished_at) as fin,
         max(finished_at) as last from result where task_id in (${marks(n)}) group by task_id, status`),
      )
      .get(n);
  const key = Buffer.from(secret);
  const refTo = (kind, id, methods) => ({ id, link: `/api/${kind}/${id}`, methods });

  const app = Fastify();
  app.get(
    '/api/task',
    { schema: { response: { 200: { type: 'array', items: task } } } },
    async (request, reply) => {
      const [head, body, signature] = (request.headers.authorization ?? '').slice(7).split('.');
      const expected = createHmac('sha256', key).update(`${head}.${body}`).digest();
      const given = Buffer.from(signature ?? '', 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return reply.status(401).send([]);
      const caller = user.get(JSON.parse(Buffer.from(body, 'base64url').toString()).sub);
      if (!caller) return reply.status(401).send([]);
      const perPage = Number(request.query.per_page ?? 10);
      const rows = page.all(perPage, (Number(request.query.page ?? 1) - 1) * perPage);
      const pageIds = rows.map((r) => r.id);
      void reply.header('total-count', String(rows[0]?.total ?? 0));
      if (pageIds.length === 0) return [];
      const byId = new Map(
        tasksOf(pageIds.length)
          .all(pageIds)
          .map((t) => [t.id, t]),
      );
      const runs = groupsOf(pageIds.length).all(pageIds);
      return pageIds.map((id) => {
        const t = byId.get(id);
        const own = runs.filter((g) => g.task_id === id);
        const complete = own.every((g) => g.n === g.fin);
        const last = own.reduce((m, g) => (m === null || (g.last ?? '') > m ? g.last : m), null);
        const results = own.flatMap((g) => ids(g.ids)).sort((a, b) => a - b);
        const children = ids(t.child_ids);
        return {
          id,
          name: t.name,
          description: t.description,
          image: t.image,
          database: t.database,
          run_id: t.run_id,
          initiator: t.initiator_id,
          init_org: t.initiator_id,
          init_user: t.init_user_id,
          collaboration:
            t.collaboration_id === null
              ? null
              : refTo('collaboration', t.collaboration_id, ['GET', 'PATCH', 'DELETE']),
          parent: t.parent_id === null ? null : refTo('task', t.parent_id, ['GET', 'DELETE']),
          children: children.length ? children.map((c) => refTo('task', c, ['GET', 'DELETE'])) : null,
          complete,
          status: statusOf(own.map((g) => g.status)),
          finished_at: apiTime(complete && own.length > 0 ? last : null),
          created_at: apiTime(t.created_at),
          cancel_on_failure: t.cancel_on_failure === 1,
          results: results.length ? results.map((r) => refTo('result', r, ['GET', 'PATCH'])) : null,
        };
      });
    },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    base: `http://127.0.0.1:${app.server.address().port}/api`,
    close: async () => {
      await app.close();
      db.close();
    },
  };
}
