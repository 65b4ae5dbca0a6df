import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { averageDescription, digestOf, startTestApp, storeApi, type TestApp } from '@federa/testing';

// A researcher's task that names a store algorithm: only an approved one runs, at its approved digest, and its
// arguments are checked against the function's description before the task exists.

let t: TestApp;
let collab: number;
let org: number;
let researcher: string;
let approvedId: number;

const input = (method: string, kwargs: Record<string, unknown>) =>
  Buffer.from(`json.${JSON.stringify({ method, args: [], kwargs })}`).toString('base64');

const task = (
  extra: Record<string, unknown>,
  method = 'central_average',
  kwargs: Record<string, unknown> = {},
) =>
  t.api('POST', '/task', {
    token: researcher,
    body: {
      collaboration_id: collab,
      organizations: [{ id: org, input: input(method, kwargs) }],
      name: 'mean',
      ...extra,
    },
  });

beforeAll(async () => {
  t = await startTestApp();
  org = await t.fx.organization();
  collab = await t.fx.collaboration([org]);
  await t.fx.node(org, collab);
  researcher = await (await t.fx.user(org, { roles: ['Researcher'] })).token();
  await storeApi(t, 'PATCH', '/policy', {
    token: t.rootToken,
    body: { min_reviewers: 1, min_reviewing_organizations: 1 },
  });
  const reviewerUser = await t.fx.user(org);
  const reviewer = await storeApi(t, 'POST', '/user', {
    token: t.rootToken,
    body: { username: reviewerUser.username, roles: ['reviewer'] },
  });
  const made = await storeApi(t, 'POST', '/algorithm', {
    token: t.rootToken,
    body: averageDescription(`reg.example.org/average:1@${digestOf(7)}`),
  });
  approvedId = made.body.id;
  const review = await storeApi(t, 'POST', '/review', {
    token: t.rootToken,
    body: { algorithm_id: approvedId, reviewer_id: reviewer.body.id },
  });
  const done = await storeApi(t, 'POST', `/review/${review.body.id}/approve`, {
    token: await reviewerUser.token(),
  });
  expect(done.body.algorithm_status).toBe('approved');
});
afterAll(async () => t.close());

describe('a task naming a store algorithm', () => {
  it('runs the approved image at its digest', async () => {
    const r = await task({ store_algorithm_id: approvedId }, 'central_average', { column_name: 'age' });
    expect(r.status).toBe(201);
    expect(r.body.image).toBe(`reg.example.org/average:1@${digestOf(7)}`);
    const row = await t.ctx.dbh.db
      .selectFrom('task')
      .selectAll()
      .where('id', '=', r.body.id)
      .executeTakeFirstOrThrow();
    expect(row.store_algorithm_id).toBe(approvedId);
  });

  it("gives a central function's run the master flag, and a federated function's run none", async () => {
    const inputOf = async (taskId: number) => {
      const run = await t.ctx.dbh.db
        .selectFrom('result')
        .select('input')
        .where('task_id', '=', taskId)
        .executeTakeFirstOrThrow();
      const text = Buffer.from(String(run.input), 'base64').toString('utf8');
      expect(text.startsWith('json.')).toBe(true);
      return JSON.parse(text.slice(5)) as Record<string, unknown>;
    };
    const central = await task({ store_algorithm_id: approvedId }, 'central_average', { column_name: 'age' });
    expect(central.status).toBe(201);
    expect(await inputOf(central.body.id)).toEqual({
      method: 'central_average',
      args: [],
      kwargs: { column_name: 'age' },
      master: true,
    });
    // A federated function sent as master would have its central entry point called, which it does not have.
    const federated = await t.api('POST', '/task', {
      token: researcher,
      body: {
        collaboration_id: collab,
        organizations: [
          {
            id: org,
            input: Buffer.from(
              `json.${JSON.stringify({ method: 'partial_average', master: true, kwargs: { column_name: 'age' } })}`,
            ).toString('base64'),
          },
        ],
        store_algorithm_id: approvedId,
      },
    });
    expect(federated.status).toBe(201);
    expect(await inputOf(federated.body.id)).toMatchObject({ method: 'partial_average', master: false });
  });

  it('names the argument and the type expected when an argument does not fit', async () => {
    const wrong = await task({ store_algorithm_id: approvedId }, 'central_average', { column_name: 5 });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('invalid_argument');
    expect(wrong.body.msg).toContain("argument 'column_name' must be a column name (string)");
    const missing = await task({ store_algorithm_id: approvedId }, 'central_average', {});
    expect(missing.body.msg).toContain("argument 'column_name' is required");
    const notAllowed = await task({ store_algorithm_id: approvedId }, 'central_average', {
      column_name: 'age',
      rounding: 'three',
    });
    expect(notAllowed.body.msg).toContain('argument \'rounding\' has "three"');
    const orgs = await task({ store_algorithm_id: approvedId }, 'central_average', {
      column_name: 'a',
      org_ids: [1, 'x'],
    });
    expect(orgs.body.msg).toContain('a list of organization ids (integers)');
    const unknown = await task({ store_algorithm_id: approvedId }, 'central_average', {
      column_name: 'a',
      colour: 1,
    });
    expect(unknown.body.msg).toContain("argument 'colour' is not an argument");
    const method = await task({ store_algorithm_id: approvedId }, 'steal_data', {});
    expect(method.body.msg).toContain('not a function of store algorithm');
  });

  it('refuses an algorithm that is not approved, and a store that cannot be reached', async () => {
    const pending = await storeApi(t, 'POST', '/algorithm', {
      token: t.rootToken,
      body: averageDescription('reg.example.org/pending:1', 'pending'),
    });
    const r = await task({ store_algorithm_id: pending.body.id }, 'central_average', { column_name: 'a' });
    expect(r.status).toBe(400);
    expect(r.body.msg).toContain('awaiting reviewer assignment, not approved');

    const linked = await t.api('POST', '/algorithmstore', {
      token: t.rootToken,
      body: { name: 'consortium', url: 'http://127.0.0.1:9/api' },
    });
    expect(linked.status).toBe(201);
    const listed = await t.api('GET', '/algorithmstore', { token: researcher });
    expect(listed.body.map((s: { name: string }) => s.name)).toEqual(['this server', 'consortium']);
    const far = await task({ store_algorithm_id: 1, algorithm_store_id: linked.body.id }, 'central_average', {
      column_name: 'a',
    });
    expect(far.status).toBe(503);
    expect(far.body).toMatchObject({ code: 'store_unreachable' });
    expect(far.body.msg).toContain(
      "The algorithm store 'consortium' (http://127.0.0.1:9/api) cannot be reached",
    );
  });
});

describe("a linked store's algorithms, read through the server", () => {
  it('lists and shows them, and names a store that cannot be reached', async () => {
    // This server's own store, linked by its URL, plays a store of another process.
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const linked = await t.api('POST', '/algorithmstore', {
      token: t.rootToken,
      body: { name: 'by url', url: `${url}/store/api/` },
    });
    const listed = await t.api('GET', `/algorithmstore/${linked.body.id}/algorithm`, {
      token: researcher,
      query: { search: 'average' },
    });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.data.map((a: { id: number }) => a.id)).toEqual([approvedId]);
    const one = await t.api('GET', `/algorithmstore/${linked.body.id}/algorithm/${approvedId}`, {
      token: researcher,
    });
    expect(one.body.functions.map((f: { name: string }) => f.name)).toEqual([
      'central_average',
      'partial_average',
    ]);
    const missing = await t.api('GET', `/algorithmstore/${linked.body.id}/algorithm/99999`, {
      token: researcher,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.msg).toContain("Algorithm in store 'by url'");

    const far = await t.api('POST', '/algorithmstore', {
      token: t.rootToken,
      body: { name: 'far away', url: 'http://127.0.0.1:9/api' },
    });
    const refused = await t.api('GET', `/algorithmstore/${far.body.id}/algorithm`, { token: researcher });
    expect(refused.status).toBe(503);
    expect(refused.body.msg).toBe(
      "The algorithm store 'far away' (http://127.0.0.1:9/api) cannot be reached; its algorithms are not listed. Try again later, or ask the server's administrator whether the store moved.",
    );
    expect((await t.api('GET', '/algorithmstore/424242/algorithm', { token: researcher })).status).toBe(404);
    expect((await t.api('GET', `/algorithmstore/${linked.body.id}/algorithm`)).status).toBe(401);
  });

  it("lists a store's tasks by its id (store_id, as a 4.x client's task.list(store=…) asks), on both surfaces", async () => {
    // Listening since the test before: this server's own store, linked by its URL.
    const address = t.app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const linked = await t.api('POST', '/algorithmstore', {
      token: t.rootToken,
      body: { name: 'tasks by store', url: `http://127.0.0.1:${port}/store/api` },
    });
    const made = async (extra: Record<string, unknown>) => {
      const r = await task(extra, 'central_average', { column_name: 'age' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as number;
    };
    const inside = await made({ store_algorithm_id: approvedId });
    const throughLink = await made({ store_algorithm_id: approvedId, algorithm_store_id: linked.body.id });
    const byImage = await made({ image: 'reg.example.org/plain:1' });
    const one = async (surface: '/api' | '/v4/api', id: number) =>
      JSON.parse(
        (
          await t.app.inject({
            url: `${surface}/task/${id}`,
            headers: { authorization: `Bearer ${researcher}` },
          })
        ).body,
      );
    expect(await one('/api', inside)).toMatchObject({ store_id: 0, store_algorithm_id: approvedId });
    expect(await one('/api', throughLink)).toMatchObject({
      store_id: linked.body.id,
      store_algorithm_id: approvedId,
    });
    expect((await one('/api', byImage)).store_id).toBeUndefined();
    expect((await one('/api', byImage)).store_algorithm_id).toBeUndefined();
    expect((await one('/v4/api', inside)).algorithm_store.id).toBe(0);
    expect((await one('/v4/api', byImage)).algorithm_store).toBeNull();
    const listed = async (surface: '/api' | '/v4/api', storeId: number) => {
      const res = await t.app.inject({
        url: `${surface}/task?store_id=${storeId}&per_page=100`,
        headers: { authorization: `Bearer ${researcher}` },
      });
      const body = JSON.parse(res.body);
      return {
        status: res.statusCode,
        body,
        ids:
          res.statusCode === 200
            ? ((Array.isArray(body) ? body : body.data) as { id: number }[]).map((x) => x.id)
            : [],
      };
    };
    for (const surface of ['/api', '/v4/api'] as const) {
      const own = await listed(surface, 0);
      expect(own.ids).toContain(inside);
      expect(own.ids).not.toContain(throughLink);
      expect(own.ids).not.toContain(byImage);
      expect((await listed(surface, linked.body.id)).ids).toEqual([throughLink]);
      const shown = (await listed(surface, linked.body.id)).body;
      if (surface === '/api') expect(shown[0].store_id).toBe(linked.body.id);
      else
        expect(shown.data[0].algorithm_store).toEqual({
          id: linked.body.id,
          link: `/v4/api/algorithmstore/${linked.body.id}`,
          methods: ['GET', 'PATCH', 'DELETE'],
        });
      const unknown = await listed(surface, 424242);
      expect(unknown.status).toBe(400);
      expect(unknown.body.msg).toBe('Algorithm store 424242 does not exist.');
    }
  });
});
