/**
 * An outsider's audit of docs/security.md: the attacks it guards against tried again through other routes than the
 * ones each promise's own test uses. Each test names what an attacker tries and asserts what they see.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
let rootId: number;
beforeAll(async () => {
  t = await startTestApp();
  const root = await t.api('GET', '/user', { token: t.rootToken, query: { username: 'root' } });
  rootId = root.body[0].id;
});
afterAll(async () => t.close());

const ruleIdsOf = async (roleId: number): Promise<number[]> =>
  ((await t.api('GET', `/role/${roleId}`, { token: t.rootToken })).body.rules ?? []).map(
    (r: { id: number }) => r.id,
  );

describe('role escalation through routes that create or change roles', () => {
  it('POST /role with a rule the caller lacks is refused (401) and creates nothing', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const global = await t.fx.ruleId('user.e_glo');
    const r = await t.api('POST', '/role', {
      token: await admin.token(),
      body: { name: `escalate-${org}`, description: 'x', rules: [global] },
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('forbidden');
    const roles = await t.api('GET', '/role', { token: t.rootToken, query: { name: `escalate-${org}` } });
    expect(roles.body ?? []).toEqual([]);
  });

  it('adding a rule the caller lacks to their own role (PATCH /role, POST /role/{id}/rule) is refused', async () => {
    const org = await t.fx.organization();
    const roleId = await t.fx.role(['role.e_org', 'role.v_org', 'user.e_org'], org);
    const admin = await t.fx.user(org, { roleIds: [roleId] });
    const token = await admin.token();
    const before = await ruleIdsOf(roleId);
    const global = await t.fx.ruleId('user.e_glo');
    const patch = await t.api('PATCH', `/role/${roleId}`, { token, body: { rules: [...before, global] } });
    expect(patch.status).toBe(401);
    const add = await t.api('POST', `/role/${roleId}/rule/${global}`, { token });
    expect(add.status).toBe(401);
    expect((await ruleIdsOf(roleId)).sort()).toEqual([...before].sort());
  });

  it('giving oneself a rule or role directly (PATCH /user/{own id}) is refused, even for a rule one holds', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const token = await admin.token();
    const lacking = await t.fx.ruleId('user.e_glo');
    const r = await t.api('PATCH', `/user/${admin.id}`, { token, body: { rules: [lacking] } });
    expect(r.status).toBe(401);
    const root = await t.fx.roleId('Root');
    const r2 = await t.api('PATCH', `/user/${admin.id}`, { token, body: { roles: [root] } });
    expect(r2.status).toBe(401);
    const me = await t.api('GET', `/user/${admin.id}`, { token: t.rootToken });
    expect(me.body.rules ?? []).toEqual([]);
  });

  it('creating a user with a role or rule the caller lacks (POST /user) is refused and creates nobody', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const token = await admin.token();
    const name = `minion-${org}`;
    const base = { username: name, firstname: 'M', lastname: 'M', password: 'Minion-Password-1!' };
    const withRole = await t.api('POST', '/user', {
      token,
      body: { ...base, email: `${name}@example.org`, roles: [await t.fx.roleId('Root')] },
    });
    expect(withRole.status).toBe(401);
    const withRule = await t.api('POST', '/user', {
      token,
      body: { ...base, email: `${name}@example.org`, rules: [await t.fx.ruleId('user.e_glo')] },
    });
    expect(withRule.status).toBe(401);
    const found = await t.api('GET', '/user', { token: t.rootToken, query: { username: name } });
    expect(found.body ?? []).toEqual([]);
  });
});

describe('e-mail and password takeover through every route that sets them', () => {
  it('PATCH /user/{id} refuses a `password` field for anyone, root included', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const r = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { password: 'Taken-Over-Password-1!' },
    });
    expect(r.status).toBe(400);
    expect(
      (await t.api('POST', '/token/user', { body: { username: u.username, password: u.password } })).status,
    ).toBe(200);
  });

  it('a password reset token is not an access token', async () => {
    const reset = await t.ctx.tokens.reset(rootId);
    const r = await t.api('GET', '/user', { token: reset });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('invalid_token');
    expect(Array.isArray(r.body)).toBe(false);
  });

  it('POST /user does not tell a caller without user CREATE which usernames and e-mail addresses exist', async () => {
    const org = await t.fx.organization();
    const viewer = await t.fx.user(org, { roles: ['Viewer'] });
    const token = await viewer.token();
    const body = (username: string, email: string) => ({
      username,
      email,
      firstname: 'a',
      lastname: 'b',
      password: 'Probe-Password-1!',
    });
    const known = await t.api('POST', '/user', { token, body: body('root', 'probe@example.org') });
    const knownMail = await t.api('POST', '/user', { token, body: body(`p-${org}`, 'root@example.org') });
    const unknown = await t.api('POST', '/user', { token, body: body(`p-${org}`, `p-${org}@example.org`) });
    expect(unknown.status).toBe(401);
    expect(known.status).toBe(401);
    expect(knownMail.status).toBe(401);
  });
});

describe('organization moves through other routes', () => {
  it('POST /user into another organization needs user CREATE GLOBAL', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const r = await t.api('POST', '/user', {
      token: await admin.token(),
      body: {
        username: `planted-${other}`,
        email: `planted-${other}@example.org`,
        firstname: 'a',
        lastname: 'b',
        password: 'Planted-Password-1!',
        organization_id: other,
      },
    });
    expect(r.status).toBe(401);
  });

  it('PATCH /node/{id} by an Organization Admin cannot move a node to another organization', async () => {
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const collab = await t.fx.collaboration([org, other]);
    const node = await t.fx.node(org, collab);
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const r = await t.api('PATCH', `/node/${node.id}`, {
      token: await admin.token(),
      body: { organization_id: other },
    });
    expect(r.status).toBe(401);
    const after = await t.api('GET', `/node/${node.id}`, { token: t.rootToken });
    expect(after.body.organization.id).toBe(org);
  });
});

describe('throttles per address', () => {
  it('X-Forwarded-For does not give an attacker a fresh address', async () => {
    const small = await startTestApp({
      config: { password_policy: { max_failed_attempts: 100, max_failed_attempts_per_address: 5 } },
    });
    try {
      const codes: string[] = [];
      for (let i = 0; i < 7; i++) {
        const r = await small.api('POST', '/token/user', {
          body: { username: `nobody-${i}`, password: 'wrong' },
          headers: { 'x-forwarded-for': `10.9.0.${i}`, 'x-real-ip': `10.8.0.${i}` },
        });
        codes.push(r.body.code);
      }
      expect(codes.slice(0, 5)).toEqual(Array(5).fill('invalid_credentials'));
      expect(codes.slice(5)).toEqual(['address_throttled', 'address_throttled']);
    } finally {
      await small.close();
    }
  });
});

describe('out-of-range input answers 400 naming the field', () => {
  const cases: [string, string, Record<string, string>, string][] = [
    ['GET', '/task', { page: '1e400' }, 'page'],
    ['GET', '/task', { per_page: '-1' }, 'per_page'],
    ['GET', '/task', { per_page: '99999999999' }, 'per_page'],
    ['GET', '/user', { page: 'Infinity' }, 'page'],
    ['GET', '/organization', { name: 'abc\\' }, 'name'],
    ['GET', '/result', { task_id: '4294967296' }, 'task_id'],
    ['GET', '/user', { username: 'a\u0000b' }, 'username'],
  ];
  for (const [method, path, query, field] of cases)
    it(`${method} ${path}?${Object.keys(query)[0]}=${JSON.stringify(Object.values(query)[0])}`, async () => {
      const r = await t.api(method, path, { token: t.rootToken, query });
      expect(r.status).toBe(400);
      expect(r.body.msg).toContain(field);
    });

  it('ids above 2^31 in paths and bodies', async () => {
    for (const path of ['/task/4294967296', '/user/99999999999', '/organization/2147483648', '/role/1e400']) {
      const r = await t.api('GET', path, { token: t.rootToken });
      expect(r.status, path).toBe(400);
      expect(r.body.msg, path).toContain('id');
    }
    const r = await t.api('POST', '/collaboration', {
      token: t.rootToken,
      body: { name: 'big-ids', organization_ids: [4294967296], encrypted: false },
    });
    expect(r.status).toBe(400);
    expect(r.body.msg).toContain('organization_ids');
  });

  it('a 2 MiB body is a 413 and a 300-character name a 400; nothing is stored', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const big = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { firstname: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect(big.status).toBe(413);
    const long = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { lastname: 'y'.repeat(300) },
    });
    expect(long.status).toBe(400);
    expect(long.body.msg).toContain('lastname');
    const after = await t.api('GET', `/user/${u.id}`, { token: t.rootToken });
    expect(after.body.firstname).toBe('Test');
    expect(after.body.lastname).toBe('User');
  });
});

describe('health and browsers', () => {
  it('GET /health with a non-root or a forged token tells only database and version', async () => {
    const viewer = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    for (const token of [await viewer.token(), 'eyJhbGciOiJub25lIn0.eyJzdWIiOjF9.', null]) {
      const r = await t.api('GET', '/health', { token });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['database', 'version']);
    }
  });

  it('a preflight from a foreign origin gets no Access-Control-Allow-Origin', async () => {
    const r = await t.app.inject({
      method: 'OPTIONS',
      url: `${t.ctx.config.api_path}/user`,
      headers: {
        origin: 'https://evil.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    const get = await t.api('GET', '/version', { headers: { origin: 'https://evil.example' } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('results of earlier tasks stay hidden from every kind of caller of a later member', () => {
  it("the node and an algorithm container of an organization that joined later do not read earlier tasks' results", async () => {
    const orgA = await t.fx.organization();
    const orgB = await t.fx.organization();
    const collab = await t.fx.collaboration([orgA]);
    const before = await t.fx.task(collab, [orgA], { name: 'before-b-joined' });
    const join = await t.api('POST', `/collaboration/${collab}/organization`, {
      token: t.rootToken,
      body: { id: orgB },
    });
    expect(join.status).toBe(200);
    const after = await t.fx.task(collab, [orgA, orgB], { name: 'after-b-joined' });
    const node = await t.fx.node(orgB, collab);
    const nodeToken = await node.token();
    const c = await t.api('POST', '/token/container', {
      token: nodeToken,
      body: { task_id: after.id, image: 'example/image:latest' },
    });
    expect(c.status).toBe(200);
    const container = c.body.container_token as string;
    // The node does see the result of its organization for the later task: the probes below can see results.
    const own = await t.api('GET', '/result', { token: nodeToken, query: { task_id: after.id } });
    expect(own.status).toBe(200);
    expect((own.body as { id: number }[]).map((r) => r.id)).toContain(after.resultIds[1]);
    for (const [who, token] of [
      ['node', nodeToken],
      ['container', container],
    ] as const) {
      const one = await t.api('GET', `/result/${before.resultIds[0]}`, { token });
      expect([401, 404], who).toContain(one.status);
      expect(one.body.result, who).toBeUndefined();
      const ofTask = await t.api('GET', `/task/${before.id}/result`, { token });
      expect(ofTask.status === 200 ? ofTask.body : [], who).toEqual([]);
      const list = await t.api('GET', '/result', { token, query: { task_id: before.id } });
      expect(list.status === 200 ? list.body : [], who).toEqual([]);
      const all = await t.api('GET', '/result', { token, query: { per_page: 100 } });
      const ids = (all.status === 200 ? (all.body as { id: number }[]) : []).map((r) => r.id);
      for (const id of before.resultIds) expect(ids, who).not.toContain(id);
      const task = await t.api('GET', `/task/${before.id}`, { token, query: { include: 'results' } });
      if (task.status === 200) expect(task.body.results ?? [], who).toEqual([]);
    }
  });
});

describe('token types are not interchangeable', () => {
  it('an access token is not a refresh token, and a refresh token is not an access token', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
    const login = await t.api('POST', '/token/user', {
      body: { username: u.username, password: u.password },
    });
    expect(login.status).toBe(200);
    const { access_token: access, refresh_token: refresh } = login.body;
    const asRefresh = await t.api('POST', '/token/refresh', { token: access });
    expect(asRefresh.status).toBe(422);
    expect(asRefresh.body.access_token).toBeUndefined();
    const asAccess = await t.api('GET', '/user', { token: refresh });
    expect(asAccess.status).toBe(422);
    // The real refresh still works: the refusals above were about the token type.
    const ok = await t.api('POST', '/token/refresh', { token: refresh });
    expect(ok.status).toBe(200);
  });
});
