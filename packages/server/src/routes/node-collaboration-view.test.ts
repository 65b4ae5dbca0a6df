/**
 * node VIEW COLLABORATION (`node.v_col`, vantage6 4.x's rule, held by the default Viewer and Researcher roles): a
 * user sees the nodes of the collaborations their organization is in, on both surfaces, and never a node of a
 * collaboration their organization is not in. Runs on the dialect FEDERA_TEST_DB names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function get(surface: '/api' | '/v4/api', path: string, token: string): Promise<Answer> {
  const res = await t.app.inject({
    method: 'GET',
    url: `${surface}${path}`,
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

/** The ids of a listing on either surface (3.x answers a plain list here, 4.x `{data, links}`). */
const idsOf = (a: Answer): number[] =>
  ((Array.isArray(a.body) ? a.body : a.body.data) as { id: number }[]).map((x) => x.id);

describe('the nodes of the collaborations one is in (node VIEW COLLABORATION)', () => {
  it('shows a researcher every node of its collaborations and refuses those of another collaboration', async () => {
    const own = await t.fx.organization();
    const partner = await t.fx.organization();
    const outsider = await t.fx.organization();
    const shared = await t.fx.collaboration([own, partner]);
    const apart = await t.fx.collaboration([partner, outsider]);
    const mine = (await t.fx.node(own, shared)).id;
    const theirs = (await t.fx.node(partner, shared)).id;
    const elsewhere = (await t.fx.node(partner, apart)).id;
    const far = (await t.fx.node(outsider, apart)).id;
    const token = await (await t.fx.user(own, { roles: ['Researcher'] })).token();

    for (const surface of ['/api', '/v4/api'] as const) {
      const list = async (query: string) => idsOf(await get(surface, `/node${query}`, token));
      expect(await list('')).toEqual([mine, theirs]);
      expect(await list(`?collaboration_id=${shared}`)).toEqual([mine, theirs]);
      expect(await list(`?collaboration_id=${apart}`)).toEqual([]);
      expect(await list(`?organization_id=${partner}`)).toEqual([theirs]);
      expect(await list(`?organization_id=${outsider}`)).toEqual([]);
      expect((await get(surface, `/node/${theirs}`, token)).status).toBe(200);
      for (const refused of [elsewhere, far]) {
        const answer = await get(surface, `/node/${refused}`, token);
        expect(answer.status).toBe(401);
        expect(answer.body.msg).toContain(`node ${refused}`);
      }
    }
    expect((await get('/api', `/node/${theirs}/history`, token)).status).toBe(200);
    expect((await get('/api', `/node/${elsewhere}/history`, token)).status).toBe(401);
    expect(idsOf(await get('/api', `/organization/${partner}/node`, token))).toEqual([theirs]);
    expect((await get('/api', `/organization/${outsider}/node`, token)).status).toBe(401);
  });

  it("is listed at /rule on both surfaces, in each one's shape", async () => {
    const token = await (await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] })).token();
    const query = '/rule?name=node&scope=COLLABORATION';
    const [three] = (await get('/api', query, token)).body as Record<string, unknown>[];
    expect(three).toMatchObject({ name: 'node', operation: 'VIEW', scope: 'COLLABORATION' });
    const four = (await get('/v4/api', query, token)).body.data as Record<string, unknown>[];
    expect(four).toEqual([
      {
        id: three!.id,
        name: 'node',
        operation: 'VIEW',
        scope: 'COLLABORATION',
        description: three!.description,
        users: `/v4/api/user?rule_id=${String(three!.id)}`,
      },
    ]);
  });

  it('keeps node VIEW ORGANIZATION to the nodes of one organization, and either rule alone to its own', async () => {
    const own = await t.fx.organization();
    const partner = await t.fx.organization();
    const shared = await t.fx.collaboration([own, partner]);
    const mine = (await t.fx.node(own, shared)).id;
    const theirs = (await t.fx.node(partner, shared)).id;

    const orgOnly = await (await t.fx.user(own, { rules: ['node.v_org'] })).token();
    expect(idsOf(await get('/v4/api', '/node', orgOnly))).toEqual([mine]);
    expect((await get('/v4/api', `/node/${theirs}`, orgOnly)).status).toBe(401);
    expect((await get('/api', `/organization/${partner}/node`, orgOnly)).status).toBe(401);

    const colOnly = await (await t.fx.user(own, { rules: ['node.v_col'] })).token();
    expect(idsOf(await get('/v4/api', '/node', colOnly))).toEqual([mine, theirs]);

    // A user of an organization in no collaboration sees no node.
    const loner = await t.fx.organization();
    const lonerToken = await (await t.fx.user(loner, { rules: ['node.v_col'] })).token();
    expect(idsOf(await get('/v4/api', '/node', lonerToken))).toEqual([]);
    expect((await get('/v4/api', `/node/${mine}`, lonerToken)).status).toBe(401);

    const none = await (await t.fx.user(own, { rules: [] })).token();
    expect((await get('/v4/api', '/node', none)).status).toBe(401);
  });
});
