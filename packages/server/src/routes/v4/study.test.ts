/**
 * Studies on the 4.x surface, as vantage6 4.14's client uses them: made of members of a collaboration, listed and
 * filtered, their organizations and tasks behind their links, tasks scoped to them (and refused for organizations
 * outside them), under the collaboration's rules. Runs on the dialect FEDERA_TEST_DB names.
 */
import { describe, expect, it } from 'vitest';
import { countTaskRows, taskBody, type TestApp, type V4Call, type V4World } from '@federa/testing';
import { useV4World } from '@federa/testing/hooks';

let t: TestApp;
let w: V4World['w'];
let v4: V4Call;
useV4World((world) => ({ t, w, v4 } = world));

describe('studies', () => {
  it('makes a study of members of a collaboration, and refuses an outsider by id', async () => {
    const outsider = await t.fx.organization();
    const refused = await v4('POST', '/study', {
      body: { name: 'refused', collaboration_id: w.collab, organization_ids: [w.orgA, outsider] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(
      new RegExp(`^Organization\\(s\\) ${outsider} are not members of collaboration`),
    );
    const made = await v4('POST', '/study', {
      body: { name: 'only A', collaboration_id: w.collab, organization_ids: [w.orgA] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.id;
    expect(made.body).toEqual({
      id,
      name: 'only A',
      collaboration: { id: w.collab, link: `/v4/api/collaboration/${w.collab}`, methods: expect.any(Array) },
      organizations: `/v4/api/organization?study_id=${id}`,
      tasks: `/v4/api/task?study_id=${id}`,
    });
    const orgs = await v4('GET', made.body.organizations);
    expect(orgs.body.data.map((o: { id: number }) => o.id)).toEqual([w.orgA]);
    const again = await v4('POST', '/study', {
      body: { name: 'only A', collaboration_id: w.collab, organization_ids: [] },
    });
    expect(again.status).toBe(400);
    expect(again.body.msg).toBe("A study named 'only A' already exists; study names must be unique.");
  });

  it('scopes a task to a study: its organizations only, and the task says so', async () => {
    const study = (
      await v4('POST', '/study', {
        body: { name: 'scoped', collaboration_id: w.collab, organization_ids: [w.orgA] },
      })
    ).body;
    const before = await countTaskRows(t);
    const outside = await v4('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA, w.orgB], { study_id: study.id }),
    });
    expect(outside.status).toBe(400);
    expect(outside.body.msg).toBe(
      `field 'study_id' names study ${study.id}, which organization(s) ${w.orgB} are not part of`,
    );
    expect(await countTaskRows(t)).toEqual(before);
    // As the 4.x client sends it with only a study: the task is made in the study's collaboration.
    const { collaboration_id: _c, ...withoutCollaboration } = taskBody(w.collab, [w.orgA]);
    const posted = await v4('POST', '/task', {
      token: w.token,
      body: { ...withoutCollaboration, study_id: study.id },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    expect(posted.body.study).toEqual({
      id: study.id,
      link: `/v4/api/study/${study.id}`,
      methods: expect.any(Array),
    });
    expect(posted.body.collaboration.id).toBe(w.collab);
    const tasks = await v4('GET', study.tasks, { token: w.token });
    expect(tasks.body.data.map((x: { id: number }) => x.id)).toEqual([posted.body.id]);
  });

  it('lists, renames, changes members and deletes, under the collaboration rules', async () => {
    const study = (
      await v4('POST', '/study', {
        body: { name: 'changing', collaboration_id: w.collab, organization_ids: [w.orgA] },
      })
    ).body;
    const mine = await v4('GET', `/study?collaboration_id=${w.collab}&sort=-name`, { token: w.token });
    expect(mine.status).toBe(200);
    const names = mine.body.data.map((s: { name: string }) => s.name);
    expect(names).toContain('changing');
    expect(names).toEqual([...names].sort().reverse());
    // A researcher may view the collaboration's studies but not change them.
    expect((await v4('PATCH', `/study/${study.id}`, { token: w.token, body: { name: 'x' } })).status).toBe(
      401,
    );
    const renamed = await v4('PATCH', `/study/${study.id}`, {
      body: { name: 'renamed', organization_ids: [w.orgB] },
    });
    expect(renamed.body.name).toBe('renamed');
    const added = await v4('POST', `/study/${study.id}/organization`, { body: { id: w.orgA } });
    expect(
      (await v4('GET', added.body.organizations)).body.data.map((o: { id: number }) => o.id).sort(),
    ).toEqual([w.orgA, w.orgB].sort());
    await v4('DELETE', `/study/${study.id}/organization`, { body: { id: w.orgB } });
    const byOrg = await v4('GET', `/study?organization_id=${w.orgB}`);
    expect(byOrg.body.data.map((s: { id: number }) => s.id)).not.toContain(study.id);
    const stranger = await (await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] })).token();
    expect((await v4('GET', `/study/${study.id}`, { token: stranger })).status).toBe(401);
    expect((await v4('GET', '/study', { token: stranger })).body.data).toEqual([]);
    expect((await v4('DELETE', `/study/${study.id}`)).status).toBe(200);
    expect((await v4('GET', `/study/${study.id}`)).status).toBe(404);
  });

  it('goes with its collaboration, and loses an organization that leaves it', async () => {
    const orgC = await t.fx.organization();
    const collab = await t.fx.collaboration([w.orgA, orgC]);
    const study = (
      await v4('POST', '/study', {
        body: { name: 'leaving', collaboration_id: collab, organization_ids: [w.orgA, orgC] },
      })
    ).body;
    await v4('DELETE', `/collaboration/${collab}/organization`, { body: { id: orgC } });
    expect((await v4('GET', study.organizations)).body.data.map((o: { id: number }) => o.id)).toEqual([
      w.orgA,
    ]);
    expect((await v4('DELETE', `/collaboration/${collab}`)).status).toBe(200);
    expect((await v4('GET', `/study/${study.id}`)).status).toBe(404);
  });
});
