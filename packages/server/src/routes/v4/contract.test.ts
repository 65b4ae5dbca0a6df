/**
 * The 4.x surface against vantage6 4.14's output and input schemas (`resource/common/output_schema.py`,
 * `input_schema.py`), as its client reads them: each item's fields, references under /v4/api, to-many relations as
 * link strings that answer the related items, tasks with `job_id`, `init_org` references and 4.x's `databases`,
 * runs without their output and results with only it, and bodies or filters it does not know refused by name.
 * Runs on the dialect FEDERA_TEST_DB names (SQLite or PostgreSQL).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { countTaskRows, taskBody, type TestApp, type V4Call, type V4World } from '@federa/testing';
import { useV4World } from '@federa/testing/hooks';

let t: TestApp;
let w: V4World['w'];
let v4: V4Call;
let taskId: number;
useV4World((world) => ({ t, w, v4 } = world));
beforeAll(async () => {
  const posted = await v4('POST', '/task', {
    token: w.token,
    body: taskBody(w.collab, [w.orgA, w.orgB], {
      databases: [{ label: 'default', query: 'SELECT 1', sheet_name: 'ages' }],
      study_id: null,
      store_id: null,
    }),
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  taskId = posted.body.id;
});

const ref = (kind: string, id: number) => ({ id, link: `/v4/api/${kind}/${id}`, methods: expect.any(Array) });
const keys = (o: object) => Object.keys(o).sort();

describe('items as vantage6 4.14 writes them', () => {
  it('an organization: its relations as links to filtered listings', async () => {
    const { body } = await v4('GET', `/organization/${w.orgA}`);
    expect(keys(body)).toEqual(
      [
        'id', 'name', 'domain', 'address1', 'address2', 'zipcode', 'country', 'public_key',
        'collaborations', 'nodes', 'users', 'tasks', 'runs', 'studies',
      ].sort(), // prettier-ignore
    );
    expect(body.nodes).toBe(`/v4/api/node?organization_id=${w.orgA}`);
    expect(body.tasks).toBe(`/v4/api/task?init_org_id=${w.orgA}`);
  });

  it('a collaboration: its organizations, nodes and tasks as links', async () => {
    const { body } = await v4('GET', `/collaboration/${w.collab}`);
    expect(keys(body)).toEqual(
      ['id', 'name', 'encrypted', 'organizations', 'nodes', 'tasks', 'algorithm_stores', 'studies'].sort(),
    );
    const orgs = await v4('GET', body.organizations);
    expect(orgs.body.data.map((o: { id: number }) => o.id).sort()).toEqual([w.orgA, w.orgB].sort());
    const tasks = await v4('GET', body.tasks);
    expect(tasks.body.data.map((x: { id: number }) => x.id)).toContain(taskId);
  });

  it('a node, a user, a role and a rule', async () => {
    const node = (await v4('GET', `/node/${w.nodeA.id}`)).body;
    expect(node.organization).toEqual(ref('organization', w.orgA));
    expect(node.collaboration).toEqual(ref('collaboration', w.collab));
    const user = (await v4('GET', `/user/${w.researcher.id}`)).body;
    expect(keys(user)).toEqual(
      [
        'id', 'type', 'username', 'firstname', 'lastname', 'email', 'ip', 'status', 'last_seen',
        'organization', 'roles', 'rules',
      ].sort(), // prettier-ignore
    );
    const roles = await v4('GET', user.roles);
    expect(roles.body.data.map((r: { name: string }) => r.name)).toEqual(['Researcher']);
    const role = roles.body.data[0];
    expect(keys(role)).toEqual(['id', 'name', 'description', 'organization', 'rules', 'users'].sort());
    const members = await v4('GET', role.users);
    expect(members.body.data.map((u: { id: number }) => u.id)).toContain(w.researcher.id);
    const rules = await v4('GET', `${role.rules}&per_page=100`);
    expect(rules.body.data.length).toBeGreaterThan(0);
    const rule = rules.body.data[0];
    expect(keys(rule)).toEqual(['id', 'name', 'operation', 'scope', 'description', 'users'].sort());
    expect((await v4('GET', rule.users)).status).toBe(200);
  });

  it('a task: job_id, references to its initiators, 4.x databases, links to its runs and results', async () => {
    const { body } = await v4('GET', `/task/${taskId}`);
    expect(body).toMatchObject({
      id: taskId,
      job_id: expect.any(Number),
      init_org: ref('organization', w.orgA),
      init_user: ref('user', w.researcher.id),
      collaboration: ref('collaboration', w.collab),
      parent: null,
      study: null,
      algorithm_store: null,
      status: 'pending',
      runs: `/v4/api/run?task_id=${taskId}`,
      results: `/v4/api/result?task_id=${taskId}`,
      children: `/v4/api/task?parent_id=${taskId}`,
      databases: [{ label: 'default', parameters: '{"query":"SELECT 1","sheet_name":"ages"}' }],
    });
    expect(body).not.toHaveProperty('run_id');
    expect(body).not.toHaveProperty('complete');
    // Its nodes read it at /api, where it says it was made on the 4.x surface; a 3.x task does not.
    expect((await t.api('GET', `/task/${taskId}`, { token: w.token })).body.api).toBe('v4');
    const three = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    expect(three.body).not.toHaveProperty('api');
    const byJob = await v4('GET', `/task?job_id=${body.job_id}`);
    expect(byJob.body.data.map((x: { id: number }) => x.id)).toEqual([taskId]);
    const byOrg = await v4('GET', `/task?init_org_id=${w.orgB}`);
    expect(byOrg.body.data).toEqual([]);
  });

  it('a task with include=runs,results embeds them in 4.x shapes', async () => {
    const { body } = await v4('GET', `/task/${taskId}?include=runs&include=results`, { token: w.token });
    expect(body.runs).toHaveLength(2);
    expect(body.runs[0]).not.toHaveProperty('result');
    expect(body.runs[0].task).toEqual(ref('task', taskId));
    expect(keys(body.results[0])).toEqual(['blob_storage_used', 'id', 'result', 'run', 'task']);
  });

  it('a run: everything but its output; a result: only its output', async () => {
    const runs = await v4('GET', `/run?task_id=${taskId}`, { token: w.token });
    expect(runs.body.data).toHaveLength(2);
    const run = runs.body.data[0];
    expect(keys(run)).toEqual(
      [
        'id', 'input', 'log', 'assigned_at', 'started_at', 'finished_at', 'cleanup_at', 'status',
        'blob_storage_used', 'node', 'ports', 'organization', 'results', 'task',
      ].sort(), // prettier-ignore
    );
    expect(run.results).toEqual({ id: run.id, link: `/v4/api/result/${run.id}`, methods: ['GET'] });
    const withTask = await v4('GET', `/run/${run.id}?include=task`, { token: w.token });
    expect(withTask.body.task).toMatchObject({ id: taskId, job_id: expect.any(Number) });
    const result = await v4('GET', `/result/${run.id}`, { token: w.token });
    expect(result.body).toEqual({
      id: run.id,
      result: null,
      blob_storage_used: false,
      run: { id: run.id, link: `/v4/api/run/${run.id}`, methods: ['GET', 'PATCH'] },
      task: ref('task', taskId),
    });
  });

  it('a node reports its run through PATCH /run/{id}, with the rule of PATCH /result/{id}', async () => {
    const runs = await v4('GET', `/run?task_id=${taskId}&organization_id=${w.orgA}`, { token: w.token });
    const id = runs.body.data[0].id;
    const nodeToken = await w.nodeA.token();
    const started = new Date().toISOString();
    const patched = await v4('PATCH', `/run/${id}`, {
      token: nodeToken,
      body: { status: 'active', started_at: started },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.status).toBe('active');
    expect((await v4('PATCH', `/run/${id}`, { token: w.token, body: { status: 'active' } })).status).toBe(
      401,
    );
    expect((await v4('GET', `/task/${taskId}/status`)).body).toEqual({ status: 'active' });
  });
});

describe('links and the member routes 4.x keeps', () => {
  it('every link an item gives answers a listing', async () => {
    const items = [
      `/organization/${w.orgA}`,
      `/collaboration/${w.collab}`,
      `/node/${w.nodeA.id}`,
      `/user/${w.researcher.id}`,
      `/task/${taskId}`,
    ];
    const role = (await v4('GET', `/role?user_id=${w.researcher.id}`)).body.data[0];
    const rule = (await v4('GET', `/rule?per_page=1`)).body.data[0];
    const links: string[] = [];
    for (const path of items) {
      const { body } = await v4('GET', path, { token: w.token });
      links.push(
        ...Object.values(body as Record<string, unknown>).filter((v): v is string => typeof v === 'string'),
      );
    }
    for (const item of [role, rule])
      links.push(...Object.values(item).filter((v): v is string => typeof v === 'string'));
    const followed = links.filter((l) => l.startsWith('/v4/api/'));
    expect(followed.length).toBeGreaterThan(15);
    for (const link of followed) {
      const r = await v4('GET', link, { token: w.token });
      expect(r.status, `${link}: ${JSON.stringify(r.body)}`).toBe(200);
      expect(Array.isArray(r.body.data)).toBe(true);
    }
    const userRules = await v4('GET', `/rule?user_id=${w.researcher.id}&per_page=100`);
    const roleRules = await v4('GET', `/rule?role_id=${role.id}&per_page=100`);
    expect(userRules.body.data.map((r: { id: number }) => r.id)).toEqual(
      roleRules.body.data.map((r: { id: number }) => r.id),
    );
  });

  it('adds and removes a collaboration member, answering the members in 4.x shapes', async () => {
    const org = await t.fx.organization();
    const added = await v4('POST', `/collaboration/${w.collab}/organization`, { body: { id: org } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.map((o: { id: number }) => o.id)).toContain(org);
    expect(added.body[0].nodes).toMatch(/^\/v4\/api\/node\?organization_id=\d+$/);
    const removed = await v4('DELETE', `/collaboration/${w.collab}/organization`, { body: { id: org } });
    expect(removed.body.map((o: { id: number }) => o.id)).not.toContain(org);
  });
});

describe('algorithm stores, as the 4.x client links and reads them', () => {
  it('links a store for one collaboration, lists it a page at a time, reads and unlinks it', async () => {
    const linked = await v4('POST', '/algorithmstore', {
      body: {
        algorithm_store_url: 'https://store.example.org',
        name: 'community',
        force: false,
        server_url: 'https://federa.example.org/v4/api',
        collaboration_id: [w.collab],
      },
    });
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    const id = linked.body.id;
    expect(linked.body).toEqual({
      id,
      name: 'community',
      url: 'https://store.example.org',
      collaborations: `/v4/api/collaboration?algorithm_store_id=${id}`,
    });
    const served = await v4('GET', linked.body.collaborations);
    expect(served.body.data.map((c: { id: number }) => c.id)).toEqual([w.collab]);
    const all = await v4('POST', '/algorithmstore', {
      body: { algorithm_store_url: 'https://all.example.org', name: 'all', force: false, server_url: 'x' },
    });
    expect(all.body.collaborations).toBeNull();
    const listed = await v4('GET', `/algorithmstore?collaboration_id=${w.collab}&per_page=1`);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.links.next).toContain('page=2');
    const second = await v4('GET', listed.body.links.next);
    expect(second.body.data).toHaveLength(1);
    expect((await v4('GET', `/algorithmstore/${id}`)).body.name).toBe('community');
    expect((await v4('DELETE', `/algorithmstore/${id}?server_url=x`)).status).toBe(200);
    expect((await v4('GET', `/algorithmstore/${id}`)).status).toBe(404);
    const many = await v4('POST', '/algorithmstore', {
      body: { algorithm_store_url: 'https://two.example.org', name: 'two', collaboration_id: [1, 2] },
    });
    expect(many.body.msg).toBe("field 'collaboration_id' names more than one collaboration");
  });
});

describe('input 4.x does not know', () => {
  it('refuses an unknown field of a body by name, and stores nothing', async () => {
    const before = await countTaskRows(t);
    const r = await v4('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA], { colaboration: 1 }),
    });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe("field 'colaboration' is not a field of this request");
    expect(await countTaskRows(t)).toEqual(before);
    const org = await v4('PATCH', `/organization/${w.orgA}`, { body: { nmae: 'x' } });
    expect(org.body.msg).toBe("field 'nmae' is not a field of this request");
  });

  it('refuses a database label a receiving node does not have, naming it, and stores nothing', async () => {
    await t.ctx.dbh.db
      .insertInto('node_config')
      .values(['default', 'other'].map((value) => ({ node_id: w.nodeB.id, key: 'database_labels', value })))
      .execute();
    const before = await countTaskRows(t);
    const body = taskBody(w.collab, [w.orgA, w.orgB], {
      databases: [{ label: 'default' }, { label: 'warehouse' }],
    });
    const r = await v4('POST', '/task', { token: w.token, body });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe(
      `field 'databases' names database 'warehouse', which the node of organization ${w.orgB} does not have (it has: default, other)`,
    );
    expect(await countTaskRows(t)).toEqual(before);
    const known = taskBody(w.collab, [w.orgA, w.orgB], { databases: [{ label: 'other' }] });
    expect((await v4('POST', '/task', { token: w.token, body: known })).status).toBe(201);
    // The 3.x surface keeps the seed's behaviour: the node serves an unknown label by its `default` database.
    expect((await t.api('POST', '/task', { token: w.token, body })).status).toBe(201);
  });

  it('refuses a task scoped to a study that does not exist, by name', async () => {
    const r = await v4('POST', '/task', {
      token: w.token,
      body: taskBody(w.collab, [w.orgA], { study_id: 999 }),
    });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe("field 'study_id' names study 999, which does not exist");
  });

  it('refuses a filter a listing does not have, or a field it cannot sort by, by name', async () => {
    const r = await v4('GET', '/organization?colour=blue');
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe("query parameter 'colour' is not a filter of this listing");
    const sorted = await v4('GET', '/organization?sort=-colour');
    expect(sorted.status).toBe(400);
    expect(sorted.body.msg).toMatch(
      /^query parameter 'sort' cannot sort by 'colour': the fields to sort by are id, name/,
    );
  });
});

describe('sorting as 4.x does: sort=field,-field', () => {
  it('orders a listing across its pages, ties by id', async () => {
    for (const name of ['zeta', 'alpha', 'mu']) await t.fx.organization({ name: `sort-${name}` });
    const all = await v4('GET', '/organization?name=sort-%25&sort=-name&per_page=2');
    expect(all.body.data.map((o: { name: string }) => o.name)).toEqual(['sort-zeta', 'sort-mu']);
    expect(all.body.links.next).toBe('/v4/api/organization?page=2&name=sort-%25&sort=-name&per_page=2');
    const next = await v4('GET', all.body.links.next);
    expect(next.body.data.map((o: { name: string }) => o.name)).toEqual(['sort-alpha']);
    const up = await v4('GET', '/organization?name=sort-%25&sort=+name');
    expect(up.body.data.map((o: { name: string }) => o.name)).toEqual(['sort-alpha', 'sort-mu', 'sort-zeta']);
  });

  it('sorts tasks by their 4.x field names and runs by status', async () => {
    const second = await v4('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    const byJob = await v4('GET', `/task?collaboration_id=${w.collab}&sort=-job_id,id`, { token: w.token });
    const ids = byJob.body.data.map((x: { id: number }) => x.id);
    expect(ids.indexOf(second.body.id)).toBeLessThan(ids.indexOf(taskId));
    const runs = await v4('GET', `/run?sort=status,-id&per_page=100`, { token: w.token });
    const statuses = runs.body.data.map((x: { status: string }) => x.status);
    expect(statuses).toEqual([...statuses].sort());
  });
});
