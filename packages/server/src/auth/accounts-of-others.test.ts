/**
 * The promises of docs/security.md, "Accounts of others": nobody takes over, moves, renames, demotes or deletes
 * an account that holds a rule they lack, nobody shrinks their own rules through a role, and one's own e-mail
 * address changes only with the current password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_PASSWORD, startTestApp, type TestApp } from '@federa/testing';

let t: TestApp;
let rootId: number;
beforeAll(async () => {
  t = await startTestApp();
  const root = await t.api('GET', '/user', { token: t.rootToken, query: { username: 'root' } });
  rootId = root.body[0].id;
});
afterAll(async () => t.close());

const idsOf = (items: { id: number }[] | null) => (items ?? []).map((x) => x.id);
const emailOf = async (id: number): Promise<string> =>
  (await t.api('GET', `/user/${id}`, { token: t.rootToken })).body.email;

describe('nobody edits the e-mail of a user who holds a rule they lack', () => {
  it("a Collaboration Admin cannot change root's e-mail address (401, naming the rule)", async () => {
    const admin = await t.fx.user(await t.fx.organization(), { roles: ['Collaboration Admin'] });
    const before = await emailOf(rootId);
    const r = await t.api('PATCH', `/user/${rootId}`, {
      token: await admin.token(),
      body: { email: 'attacker@example.org' },
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('forbidden');
    expect(r.body.msg).toMatch(/^User 'root' \(id=\d+\) holds the rule '.+ GLOBAL' .*which you lack/);
    expect(r.body.msg).toContain('change their e-mail address');
    expect(await emailOf(rootId)).toBe(before);
  });

  it("an Organization Admin cannot change a Collaboration Admin colleague's e-mail address", async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const higher = await t.fx.user(org, { roles: ['Collaboration Admin'] });
    const r = await t.api('PATCH', `/user/${higher.id}`, {
      token: await admin.token(),
      body: { email: `taken-over-${higher.id}@example.org` },
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('forbidden');
    expect(r.body.msg).toMatch(/holds the rule '[a-z]+ [A-Z]+ GLOBAL'/);
    expect(await emailOf(higher.id)).toBe(`${higher.username}@example.org`);
    // An address in use gets the same refusal: the refusal tells nothing about other accounts.
    const inUse = await t.api('PATCH', `/user/${higher.id}`, {
      token: await admin.token(),
      body: { email: await emailOf(rootId) },
    });
    expect(inUse.status).toBe(401);
    // Nor their names: any change to a higher account is refused.
    const names = await t.api('PATCH', `/user/${higher.id}`, {
      token: await admin.token(),
      body: { firstname: 'Renamed' },
    });
    expect(names.status).toBe(401);
    expect(names.body.code).toBe('forbidden');
  });

  it('an admin still edits the e-mail of users whose rules they all hold; root edits anyone without a password', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const peer = await t.fx.user(org, { roles: ['Organization Admin'] });
    const researcher = await t.fx.user(org, { roles: ['Researcher'] });
    for (const u of [peer, researcher]) {
      const r = await t.api('PATCH', `/user/${u.id}`, {
        token: await admin.token(),
        body: { email: `edited-${u.id}@example.org` },
      });
      expect(r.status, u.username).toBe(200);
      expect(r.body.email).toBe(`edited-${u.id}@example.org`);
    }
    const higher = await t.fx.user(org, { roles: ['Collaboration Admin'] });
    const byRoot = await t.api('PATCH', `/user/${higher.id}`, {
      token: t.rootToken,
      body: { email: `by-root-${higher.id}@example.org` },
    });
    expect(byRoot.status).toBe(200);
    expect(byRoot.body.email).toBe(`by-root-${higher.id}@example.org`);
  });
});

describe('changing your own e-mail address needs your current password', () => {
  it('refuses without `current_password` (400) and with a wrong one (400); accepts the right one', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const token = await u.token();
    const missing = await t.api('PATCH', `/user/${u.id}`, {
      token,
      body: { email: `mine-${u.id}@example.org` },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('current_password_required');
    expect(missing.body.msg).toContain('current_password');
    const inUse = await t.api('PATCH', `/user/${u.id}`, { token, body: { email: await emailOf(rootId) } });
    expect(inUse.body.code).toBe('current_password_required');
    const wrong = await t.api('PATCH', `/user/${u.id}`, {
      token,
      body: { email: `mine-${u.id}@example.org`, current_password: 'Not-The-Password-1!' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('current_password_wrong');
    expect(await emailOf(u.id)).toBe(`${u.username}@example.org`);
    const right = await t.api('PATCH', `/user/${u.id}`, {
      token,
      body: { email: `mine-${u.id}@example.org`, current_password: u.password },
    });
    expect(right.status).toBe(200);
    expect(right.body.email).toBe(`mine-${u.id}@example.org`);
    // Other fields of your own account, and the unchanged e-mail address, need no password.
    const names = await t.api('PATCH', `/user/${u.id}`, {
      token,
      body: { firstname: 'Own', email: `mine-${u.id}@example.org` },
    });
    expect(names.status).toBe(200);
  });

  it('holds for root too', async () => {
    const before = await emailOf(rootId);
    const missing = await t.api('PATCH', `/user/${rootId}`, {
      token: t.rootToken,
      body: { email: 'root-new@example.org' },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('current_password_required');
    const right = await t.api('PATCH', `/user/${rootId}`, {
      token: t.rootToken,
      body: { email: 'root-new@example.org', current_password: ROOT_PASSWORD },
    });
    expect(right.status).toBe(200);
    await t.api('PATCH', `/user/${rootId}`, {
      token: t.rootToken,
      body: { email: before, current_password: ROOT_PASSWORD },
    });
  });

  it('counts wrong passwords like failed logins: the account locks', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const token = await u.token();
    const max = t.ctx.config.password_policy.max_failed_attempts;
    for (let i = 0; i < max; i += 1) {
      const r = await t.api('PATCH', `/user/${u.id}`, {
        token,
        body: { email: `guess-${u.id}@example.org`, current_password: `Wrong-Guess-${i}!` },
      });
      expect(r.body.code).toBe('current_password_wrong');
    }
    const locked = await t.api('PATCH', `/user/${u.id}`, {
      token,
      body: { email: `guess-${u.id}@example.org`, current_password: u.password },
    });
    expect(locked.status).toBe(401);
    expect(locked.body.code).toBe('account_locked');
    const login = await t.api('POST', '/token/user', {
      body: { username: u.username, password: u.password },
    });
    expect(login.status).toBe(401);
    expect(await emailOf(u.id)).toBe(`${u.username}@example.org`);
  });
});

describe('users stay in their organization', () => {
  it('refuses PATCH organization_id to another organization (400), even by root; the same one is accepted', async () => {
    const org = await t.fx.organization();
    const target = await t.fx.organization();
    const u = await t.fx.user(org, { roles: ['Organization Admin'] });
    const admin = await t.fx.user(await t.fx.organization(), { roles: ['Collaboration Admin'] });
    for (const token of [t.rootToken, await admin.token()]) {
      const r = await t.api('PATCH', `/user/${u.id}`, { token, body: { organization_id: target } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('not_allowed_input');
      expect(r.body.msg).toMatch(/cannot be moved to another organization/);
    }
    const after = await t.api('GET', `/user/${u.id}`, { token: t.rootToken });
    expect(after.body.organization.id).toBe(org);
    expect(idsOf(after.body.roles)).toEqual([await t.fx.roleId('Organization Admin')]);
    const same = await t.api('PATCH', `/user/${u.id}`, {
      token: t.rootToken,
      body: { organization_id: org, lastname: 'Stays' },
    });
    expect(same.status).toBe(200);
    expect(same.body.lastname).toBe('Stays');
  });
});

describe('only the user themself renames their account', () => {
  it('refuses renaming another user (400) for a Collaboration Admin and for root; the user renames themself', async () => {
    const u = await t.fx.user(await t.fx.organization(), { roles: ['Viewer'] });
    const admin = await t.fx.user(await t.fx.organization(), { roles: ['Collaboration Admin'] });
    for (const token of [await admin.token(), t.rootToken]) {
      const r = await t.api('PATCH', `/user/${u.id}`, { token, body: { username: `hijacked-${u.id}` } });
      expect(r.status).toBe(400);
      expect(r.body.msg).toBe('You cannot change the username of another user.');
    }
    const own = await t.api('PATCH', `/user/${u.id}`, {
      token: await u.token(),
      body: { username: `self-renamed-${u.id}` },
    });
    expect(own.status).toBe(200);
    expect(await t.login(`self-renamed-${u.id}`, u.password)).toBeTruthy();
  });

  it('keeps the root account: it cannot be renamed or deleted, not even by root (400 root_protected)', async () => {
    const rename = await t.api('PATCH', `/user/${rootId}`, {
      token: t.rootToken,
      body: { username: 'not-root' },
    });
    expect(rename.status).toBe(400);
    expect(rename.body.code).toBe('root_protected');
    const del = await t.api('DELETE', `/user/${rootId}`, { token: t.rootToken });
    expect(del.status).toBe(400);
    expect(del.body.code).toBe('root_protected');
    expect(await t.login('root', ROOT_PASSWORD)).toBeTruthy();
  });
});

describe('nobody manages an account that holds a rule they lack', () => {
  it('refuses deleting such a user (401); deleting a user you outrank works', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const higher = await t.fx.user(org, { roles: ['Organization Admin'], rules: ['task.c_glo'] });
    const r = await t.api('DELETE', `/user/${higher.id}`, { token: await admin.token() });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('forbidden');
    expect(r.body.msg).toContain("holds the rule 'task CREATE GLOBAL'");
    expect(r.body.msg).toContain('delete their account');
    expect((await t.api('GET', `/user/${higher.id}`, { token: t.rootToken })).status).toBe(200);
    const lower = await t.fx.user(org, { roles: ['Researcher'] });
    expect((await t.api('DELETE', `/user/${lower.id}`, { token: await admin.token() })).status).toBe(200);
    expect((await t.api('DELETE', `/user/${higher.id}`, { token: t.rootToken })).status).toBe(200);
  });

  it('refuses giving a role or rule you hold to such a user (401)', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const higher = await t.fx.user(org, { rules: ['task.c_glo'] });
    const role = await t.api('PATCH', `/user/${higher.id}`, {
      token: await admin.token(),
      body: { roles: [await t.fx.roleId('Viewer')] },
    });
    expect(role.status).toBe(401);
    expect(role.body.code).toBe('forbidden');
    expect(role.body.msg).toContain("holds the rule 'task CREATE GLOBAL' (task.c_glo), which you lack");
    const rule = await t.api('PATCH', `/user/${higher.id}`, {
      token: await admin.token(),
      body: { rules: [await t.fx.ruleId('task.c_glo'), await t.fx.ruleId('task.v_org')] },
    });
    expect(rule.status).toBe(401);
    expect(rule.body.msg).toContain('which you lack, so you cannot change their account');
    const after = await t.api('GET', `/user/${higher.id}`, { token: t.rootToken });
    expect(after.body.roles).toBeNull();
    expect(idsOf(after.body.rules)).toEqual([await t.fx.ruleId('task.c_glo')]);
  });

  it('refuses widening, narrowing or deleting a role such a user holds (401)', async () => {
    const org = await t.fx.organization();
    const admin = await t.fx.user(org, { roles: ['Organization Admin'] });
    const lab = await t.fx.role(['task.v_org', 'result.v_org'], org);
    await t.fx.user(org, { roleIds: [lab], rules: ['task.c_glo'] });
    const token = await admin.token();
    const held = await t.fx.ruleId('task.c_org');
    const resultView = await t.fx.ruleId('result.v_org');
    const attempts = [
      await t.api('PATCH', `/role/${lab}`, {
        token,
        body: { rules: [await t.fx.ruleId('task.v_org'), resultView, held] },
      }),
      await t.api('PATCH', `/role/${lab}`, { token, body: { rules: [await t.fx.ruleId('task.v_org')] } }),
      await t.api('POST', `/role/${lab}/rule/${held}`, { token }),
      await t.api('DELETE', `/role/${lab}/rule/${resultView}`, { token }),
      await t.api('DELETE', `/role/${lab}`, { token }),
    ];
    for (const r of attempts) {
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('forbidden');
      expect(r.body.msg).toMatch(/which they hold/);
    }
    const after = await t.api('GET', `/role/${lab}`, { token: t.rootToken });
    expect(idsOf(after.body.rules).sort()).toEqual(
      [await t.fx.ruleId('task.v_org'), resultView].sort((a, b) => a - b),
    );
    // Renaming or describing it changes nobody's rules.
    const described = await t.api('PATCH', `/role/${lab}`, { token, body: { description: 'lab' } });
    expect(described.status).toBe(200);
    // A role held only by users the admin outranks is theirs to change.
    const team = await t.fx.role(['task.v_org'], org);
    await t.fx.user(org, { roleIds: [team] });
    expect((await t.api('POST', `/role/${team}/rule/${held}`, { token })).status).toBe(201);
    expect((await t.api('DELETE', `/role/${team}`, { token })).status).toBe(200);
  });
});

describe('nobody shrinks their own rules through a role they hold', () => {
  const adminRules = ['role.v_org', 'role.e_org', 'role.d_org', 'task.v_org', 'task.c_org'] as const;

  it('refuses removing a rule from, or deleting, your only role (401)', async () => {
    const org = await t.fx.organization();
    const mine = await t.fx.role([...adminRules], org);
    const u = await t.fx.user(org, { roleIds: [mine] });
    const token = await u.token();
    const taskCreate = await t.fx.ruleId('task.c_org');
    const keep = await Promise.all(adminRules.filter((k) => k !== 'task.c_org').map((k) => t.fx.ruleId(k)));
    const attempts = [
      await t.api('PATCH', `/role/${mine}`, { token, body: { rules: keep } }),
      await t.api('DELETE', `/role/${mine}/rule/${taskCreate}`, { token }),
      await t.api('DELETE', `/role/${mine}/rule/${await t.fx.ruleId('role.e_org')}`, { token }),
      await t.api('DELETE', `/role/${mine}`, { token }),
    ];
    for (const r of attempts) {
      expect(r.status).toBe(401);
      expect(r.body.code).toBe('forbidden');
      expect(r.body.msg).toMatch(/this change would take the rule '.+' \(.+\) away from you/);
    }
    expect(attempts[0]?.body.msg).toContain("'task CREATE ORGANIZATION'");
    const after = await t.api('GET', `/role/${mine}`, { token: t.rootToken });
    expect(idsOf(after.body.rules)).toHaveLength(adminRules.length);
    // Describing your own role takes nothing away.
    expect(
      (await t.api('PATCH', `/role/${mine}`, { token, body: { description: 'still mine' } })).status,
    ).toBe(200);
  });

  it('allows the change when you keep the rules through another role or directly', async () => {
    const org = await t.fx.organization();
    const mine = await t.fx.role([...adminRules], org);
    const backup = await t.fx.role(['task.c_org'], org);
    const u = await t.fx.user(org, { roleIds: [mine, backup], rules: ['role.d_org'] });
    const token = await u.token();
    const r = await t.api('DELETE', `/role/${mine}/rule/${await t.fx.ruleId('task.c_org')}`, { token });
    expect(r.status).toBe(200);
    const d = await t.api('DELETE', `/role/${mine}/rule/${await t.fx.ruleId('role.d_org')}`, { token });
    expect(d.status).toBe(200);
  });

  it('root cannot shrink the Root role it holds; another role editor cannot either (root holds more)', async () => {
    const rootRole = await t.fx.roleId('Root');
    const some = await t.fx.ruleId('task.c_glo');
    const byRoot = await t.api('DELETE', `/role/${rootRole}/rule/${some}`, { token: t.rootToken });
    expect(byRoot.status).toBe(401);
    expect(byRoot.body.code).toBe('forbidden');
    const editor = await t.fx.user(await t.fx.organization(), {
      rules: ['role.e_glo', 'role.d_glo', 'task.c_glo'],
    });
    const byEditor = await t.api('DELETE', `/role/${rootRole}/rule/${some}`, { token: await editor.token() });
    expect(byEditor.status).toBe(401);
    expect(byEditor.body.code).toBe('forbidden');
    expect(byEditor.body.msg).toContain("User 'root'");
  });
});
