import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const ORGANIZATION_KEYS = [
  'address1',
  'address2',
  'collaborations',
  'country',
  'domain',
  'id',
  'name',
  'nodes',
  'public_key',
  'results',
  'roles',
  'users',
  'zipcode',
];

describe('GET /organization pagination (docs/api.md#pagination)', () => {
  it('gives page 2 with per_page 5 of 12 organizations: right slice, total-count, Link and links', async () => {
    const admin = await t.fx.user(await t.fx.organization(), { rules: ['organization.v_glo'] });
    const token = await admin.token();
    // The listing shows every organization (root's included); top up to exactly 12.
    const before = await t.api('GET', '/organization', { token });
    for (let i = Number(before.headers['total-count']); i < 12; i++) await t.fx.organization();
    const all = await t.api('GET', '/organization', { token });
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    expect(all.body).toHaveLength(12);
    expect(all.headers['total-count']).toBe('12');
    const allIds = all.body.map((o: { id: number }) => o.id);
    expect(allIds).toEqual([...allIds].sort((a: number, b: number) => a - b));
    // Without page, every link points at page 1.
    expect(all.headers.link).toBe(
      '</api/organization?page=1>; rel=first,</api/organization?page=1>; rel=self,</api/organization?page=1>; rel=last',
    );

    const r = await t.api('GET', '/organization', {
      token,
      query: { page: 2, per_page: 5, include: 'metadata' },
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'links']);
    expect(r.body.data.map((o: { id: number }) => o.id)).toEqual(allIds.slice(5, 10));
    expect(Object.keys(r.body.data[0]).sort()).toEqual(ORGANIZATION_KEYS);
    expect(r.headers['total-count']).toBe('12');
    const at = (page: number) => `/api/organization?page=${page}&per_page=5&include=metadata`;
    expect(r.body.links).toEqual({ first: at(1), previous: at(1), self: at(2), next: at(3), last: at(3) });
    expect(Object.keys(r.body.links)).toEqual(['first', 'previous', 'self', 'next', 'last']);
    expect(r.headers.link).toBe(
      `<${at(1)}>; rel=first,<${at(1)}>; rel=previous,<${at(2)}>; rel=self,<${at(3)}>; rel=next,<${at(3)}>; rel=last`,
    );
    // The last page holds the remaining two.
    const third = await t.api('GET', '/organization', { token, query: { page: 3, per_page: 5 } });
    expect(third.body.map((o: { id: number }) => o.id)).toEqual(allIds.slice(10));
    // A page past the end is empty, and keeps the count.
    const past = await t.api('GET', '/organization', { token, query: { page: 9, per_page: 5 } });
    expect(past.body).toEqual([]);
    expect(past.headers['total-count']).toBe('12');
  });

  it('omits previous on page 1, next and last where they do not apply, and answers bare arrays without metadata', async () => {
    const admin = await t.fx.user(await t.fx.organization(), { rules: ['organization.v_glo'] });
    const token = await admin.token();
    const total = Number((await t.api('GET', '/organization', { token })).headers['total-count']);
    const first = await t.api('GET', '/organization', {
      token,
      query: { page: 1, per_page: 5, include: 'metadata' },
    });
    expect(Object.keys(first.body.links)).toEqual(['first', 'self', 'next', 'last']);
    const lastPage = Math.ceil(total / 5);
    const last = await t.api('GET', '/organization', {
      token,
      query: { page: lastPage, per_page: 5, include: 'metadata' },
    });
    expect(Object.keys(last.body.links)).toEqual(['first', 'previous', 'self', 'last']);
    expect(last.body.data).toHaveLength(total - (lastPage - 1) * 5);
    const bare = await t.api('GET', '/organization', { token, query: { page: 2, per_page: 5 } });
    expect(Array.isArray(bare.body)).toBe(true);
    expect(bare.body).toHaveLength(5);
    expect(bare.headers.link).toContain('rel=next');
    const empty = await t.api('GET', '/organization', {
      token,
      query: { name: 'no-such-organization', include: 'metadata' },
    });
    expect(empty.body.data).toEqual([]);
    expect(empty.headers['total-count']).toBe('0');
    expect(Object.keys(empty.body.links)).toEqual(['first', 'self']);
  });

  it('refuses a non-integer or zero page with 400 naming page', async () => {
    const r = await t.api('GET', '/organization', { token: t.rootToken, query: { page: 'abc' } });
    expect(r.status).toBe(400);
    expect(r.body.msg).toContain('page');
    const zero = await t.api('GET', '/organization', { token: t.rootToken, query: { page: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.body.msg).toContain('page');
    const pp = await t.api('GET', '/organization', { token: t.rootToken, query: { page: 1, per_page: 'x' } });
    expect(pp.status).toBe(400);
    expect(pp.body.msg).toContain('per_page');
  });
});

describe('POST and GET /organization', () => {
  it('creates an organization with every field (address2 and domain included) for a user with organization.c_glo', async () => {
    const body = {
      name: 'Clinic North',
      domain: 'north.example.org',
      address1: 'Main 1',
      address2: 'Floor 2',
      zipcode: '1234 AB',
      country: 'NL',
      public_key: '',
    };
    const r = await t.api('POST', '/organization', { token: t.rootToken, body });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(ORGANIZATION_KEYS);
    expect(r.body).toMatchObject(body);
    expect(r.body.users).toBeNull();
    expect(r.body.roles).toEqual([]);
    const got = await t.api('GET', `/organization/${r.body.id}`, { token: t.rootToken });
    expect(got.body).toEqual(r.body);
  });

  it('refuses creation without organization.c_glo (401) and validates field types (400)', async () => {
    const admin = await t.fx.user(await t.fx.organization(), { roles: ['Organization Admin'] });
    const r = await t.api('POST', '/organization', { token: await admin.token(), body: { name: 'nope' } });
    expect(r.status).toBe(401);
    const bad = await t.api('POST', '/organization', { token: t.rootToken, body: { name: { text: 'x' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('name');
  });

  it('includes the domain key in GET /organization and applies the scope of the caller', async () => {
    const own = await t.fx.organization({ domain: 'own.example.org' });
    const partner = await t.fx.organization();
    const stranger = await t.fx.organization();
    await t.fx.collaboration([own, partner]);
    const viewer = await t.fx.user(own, { rules: ['organization.v_org'] });
    const mine = await t.api('GET', '/organization', { token: await viewer.token() });
    expect(mine.status).toBe(200);
    expect(mine.body.map((o: { id: number }) => o.id)).toEqual([own]);
    expect(mine.body[0].domain).toBe('own.example.org');
    expect('domain' in mine.body[0]).toBe(true);

    const colleague = await t.fx.user(own, { rules: ['organization.v_col'] });
    const shared = await t.api('GET', '/organization', { token: await colleague.token() });
    expect(shared.body.map((o: { id: number }) => o.id)).toEqual([own, partner]);

    const none = await t.fx.user(own, { rules: ['user.v_org'] });
    expect((await t.api('GET', '/organization', { token: await none.token() })).status).toBe(401);

    // GET one: own and partners (v_col), not strangers.
    const ct = await colleague.token();
    expect((await t.api('GET', `/organization/${partner}`, { token: ct })).status).toBe(200);
    expect((await t.api('GET', `/organization/${stranger}`, { token: ct })).status).toBe(401);
    expect((await t.api('GET', `/organization/${partner}`, { token: await viewer.token() })).status).toBe(
      401,
    );
    expect((await t.api('GET', '/organization/999999', { token: ct })).status).toBe(404);
  });

  it("counts a colleague's partners once each, across collaborations, on every page", async () => {
    const own = await t.fx.organization();
    const [a, b, c, stranger] = [
      await t.fx.organization(),
      await t.fx.organization(),
      await t.fx.organization(),
      await t.fx.organization(),
    ];
    await t.fx.collaboration([own, a, b]);
    await t.fx.collaboration([own, b, c]);
    await t.fx.collaboration([a, stranger]);
    const token = await (await t.fx.user(own, { rules: ['organization.v_col'] })).token();
    const all = await t.api('GET', '/organization', { token });
    expect(all.body.map((o: { id: number }) => o.id)).toEqual([own, a, b, c]);
    for (const page of [1, 2, 3]) {
      const r = await t.api('GET', '/organization', { token, query: { page, per_page: 2 } });
      expect(r.headers['total-count']).toBe('4');
      expect(r.body.map((o: { id: number }) => o.id)).toEqual([own, a, b, c].slice((page - 1) * 2, page * 2));
    }
    // A filter beside the scope is counted on the listing itself.
    const named = await t.api('GET', '/organization', { token, query: { page: 1, collaboration_id: 0 } });
    expect(named.headers['total-count']).toBe('0');
    // An organization in no collaboration has itself.
    const alone = await t.fx.organization();
    const lonely = await (await t.fx.user(alone, { rules: ['organization.v_col'] })).token();
    const r = await t.api('GET', '/organization', { token: lonely, query: { page: 1 } });
    expect(r.headers['total-count']).toBe('1');
    expect(r.body.map((o: { id: number }) => o.id)).toEqual([alone]);
  });

  it('filters by name (LIKE), country and collaboration_id', async () => {
    const a = await t.fx.organization({ name: 'Filter Alpha', country: 'BE' });
    const b = await t.fx.organization({ name: 'Filter Beta', country: 'DE' });
    const collab = await t.fx.collaboration([b]);
    const ids = async (query: Record<string, string | number>) =>
      (await t.api('GET', '/organization', { token: t.rootToken, query })).body.map(
        (o: { id: number }) => o.id,
      );
    expect(await ids({ name: 'Filter%' })).toEqual([a, b]);
    expect(await ids({ name: 'Filter Alpha' })).toEqual([a]);
    expect(await ids({ name: 'Filter%', country: 'DE' })).toEqual([b]);
    expect(await ids({ collaboration_id: collab })).toEqual([b]);
    const bad = await t.api('GET', '/organization', { token: t.rootToken, query: { collaboration_id: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('collaboration_id');
  });

  it('pages the partners of two collaborations once each, with their total, and an organization alone sees itself', async () => {
    const own = await t.fx.organization();
    const [a, b, c] = [await t.fx.organization(), await t.fx.organization(), await t.fx.organization()];
    const stranger = await t.fx.organization();
    await t.fx.collaboration([own, a, b]);
    await t.fx.collaboration([b, own, c]);
    await t.fx.collaboration([stranger, a]);
    const token = await (await t.fx.user(own, { rules: ['organization.v_col'] })).token();
    const page = async (n: number) => {
      const r = await t.api('GET', '/organization', { token, query: { page: n, per_page: 2 } });
      expect(r.status).toBe(200);
      expect(r.headers['total-count']).toBe('4');
      return r.body.map((o: { id: number }) => o.id);
    };
    expect([...(await page(1)), ...(await page(2))]).toEqual([own, a, b, c].sort((x, y) => x - y));
    expect(await page(3)).toEqual([]);

    const alone = await t.fx.organization();
    const lone = await (await t.fx.user(alone, { rules: ['organization.v_col'] })).token();
    const r = await t.api('GET', '/organization', { token: lone });
    expect(r.body.map((o: { id: number }) => o.id)).toEqual([alone]);
  });

  it('lets a node view its organization and partners', async () => {
    const own = await t.fx.organization();
    const partner = await t.fx.organization();
    const collab = await t.fx.collaboration([own, partner]);
    const node = await t.fx.node(own, collab);
    const r = await t.api('GET', '/organization', { token: await node.token() });
    expect(r.status).toBe(200);
    expect(r.body.map((o: { id: number }) => o.id)).toEqual([own, partner]);
  });
});

describe('PATCH /organization/{id}', () => {
  it('stores empty strings, updates domain and country, and ignores nulls', async () => {
    const org = await t.fx.organization({ name: 'Patchable', domain: 'old.example.org', country: 'NL' });
    const r = await t.api('PATCH', `/organization/${org}`, {
      token: t.rootToken,
      body: { domain: 'new.example.org', country: 'BE', address1: '', zipcode: '', name: null },
    });
    expect(r.status).toBe(200);
    expect(r.body.domain).toBe('new.example.org');
    expect(r.body.country).toBe('BE');
    expect(r.body.address1).toBe('');
    expect(r.body.zipcode).toBe('');
    expect(r.body.name).toBe('Patchable');
    const got = await t.api('GET', `/organization/${org}`, { token: t.rootToken });
    expect(got.body).toMatchObject({ domain: 'new.example.org', country: 'BE', address1: '', zipcode: '' });
    const emptied = await t.api('PATCH', `/organization/${org}`, {
      token: t.rootToken,
      body: { name: '', domain: '', country: '' },
    });
    expect(emptied.status).toBe(200);
    expect(emptied.body).toMatchObject({ name: '', domain: '', country: '' });
    expect((await t.api('GET', `/organization/${org}`, { token: t.rootToken })).body).toMatchObject({
      name: '',
      domain: '',
      country: '',
    });
  });

  it("lets a node update its own organization's public key, not another organization's (401)", async () => {
    const own = await t.fx.organization();
    const other = await t.fx.organization({ public_key: 'b3RoZXI=' });
    const collab = await t.fx.collaboration([own, other]);
    const node = await t.fx.node(own, collab);
    const token = await node.token();
    const key = Buffer.from('-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n').toString('base64');
    const r = await t.api('PATCH', `/organization/${own}`, { token, body: { public_key: key } });
    expect(r.status).toBe(200);
    expect(r.body.public_key).toBe(key);
    const refused = await t.api('PATCH', `/organization/${other}`, { token, body: { public_key: key } });
    expect(refused.status).toBe(401);
    expect((await t.api('GET', `/organization/${other}`, { token: t.rootToken })).body.public_key).toBe(
      'b3RoZXI=',
    );
  });

  it('needs organization.e_glo for another organization and answers 404 for an unknown one', async () => {
    const own = await t.fx.organization();
    const other = await t.fx.organization();
    const admin = await t.fx.user(own, { roles: ['Organization Admin'] });
    const token = await admin.token();
    expect((await t.api('PATCH', `/organization/${own}`, { token, body: { country: 'FR' } })).status).toBe(
      200,
    );
    expect((await t.api('PATCH', `/organization/${other}`, { token, body: { country: 'FR' } })).status).toBe(
      401,
    );
    const global = await t.fx.user(own, { rules: ['organization.e_glo'] });
    expect(
      (
        await t.api('PATCH', `/organization/${other}`, {
          token: await global.token(),
          body: { country: 'FR' },
        })
      ).status,
    ).toBe(200);
    expect(
      (await t.api('PATCH', '/organization/999999', { token: t.rootToken, body: { country: 'FR' } })).status,
    ).toBe(404);
  });
});

describe('GET /organization/{id}/collaboration and /organization/{id}/node', () => {
  it('answers plain arrays of collaborations and full-form nodes, within the caller scope', async () => {
    const own = await t.fx.organization();
    const other = await t.fx.organization();
    const c1 = await t.fx.collaboration([own, other]);
    const c2 = await t.fx.collaboration([own]);
    const node = await t.fx.node(own, c1);
    const viewer = await t.fx.user(own, { roles: ['Viewer'] });
    const token = await viewer.token();
    const collabs = await t.api('GET', `/organization/${own}/collaboration`, {
      token,
      query: { page: 1, per_page: 1 },
    });
    expect(collabs.status).toBe(200);
    expect(collabs.body.map((c: { id: number }) => c.id)).toEqual([c1, c2]);
    expect(Object.keys(collabs.body[0]).sort()).toEqual([
      'encrypted',
      'id',
      'name',
      'nodes',
      'organizations',
      'tasks',
    ]);
    const nodes = await t.api('GET', `/organization/${own}/node`, { token });
    expect(nodes.status).toBe(200);
    expect(nodes.body.map((n: { id: number }) => n.id)).toEqual([node.id]);
    expect(Object.keys(nodes.body[0]).sort()).toEqual([
      'collaboration',
      'config',
      'id',
      'ip',
      'last_seen',
      'name',
      'organization',
      'status',
      'type',
    ]);
    expect((await t.api('GET', `/organization/${other}/collaboration`, { token })).status).toBe(401);
    // A partner's nodes in the collaborations shared with it (node VIEW COLLABORATION), not a stranger's.
    const theirs = await t.fx.node(other, c1);
    await t.fx.node(other, await t.fx.collaboration([other]));
    const partnerNodes = await t.api('GET', `/organization/${other}/node`, { token });
    expect(partnerNodes.body.map((n: { id: number }) => n.id)).toEqual([theirs.id]);
    const stranger = await t.fx.organization();
    await t.fx.node(stranger, await t.fx.collaboration([stranger]));
    expect((await t.api('GET', `/organization/${stranger}/node`, { token })).status).toBe(401);
    expect((await t.api('GET', '/organization/999999/node', { token })).status).toBe(404);
    expect((await t.api('GET', `/organization/${stranger}/node`, { token: t.rootToken })).body).toHaveLength(
      1,
    );
  });
});
