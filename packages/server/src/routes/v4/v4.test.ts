/**
 * The vantage6 4.x surface at /v4/api (docs/vantage6-4.md), as vantage6 4.14's client calls it: login, listings as
 * `{data, links}` with 4.x's default page, tasks with `databases`, `/task/{id}/status`, `/run` and `/result`; the
 * same rules as the 3.x routes, and a 404 naming the other surface's path for a call made on the wrong one.
 */
import { describe, expect, it } from 'vitest';
import { taskBody, type TestApp, type V4Call, type V4World } from '@federa/testing';
import { useV4World } from '@federa/testing/hooks';

let t: TestApp;
let w: V4World['w'];
let v4: V4Call;
useV4World((world) => ({ t, w, v4 } = world), { caller: { token: null } });

describe('the vantage6 4.x surface', () => {
  it('logs a user in and tells its version', async () => {
    const login = await v4('POST', '/token/user', {
      body: { username: w.researcher.username, password: w.researcher.password },
    });
    expect(login.status).toBe(200);
    expect(typeof login.body.access_token).toBe('string');
    expect(typeof login.body.refresh_token).toBe('string');
    const refreshed = await v4('POST', '/token/refresh', { token: login.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(typeof refreshed.body.access_token).toBe('string');
    const version = await v4('GET', '/version');
    expect(version).toEqual({ status: 200, body: { version: expect.any(String) } });
  });

  it.each([
    '/organization',
    '/collaboration',
    '/node',
    '/user',
    '/role',
    '/task',
    '/run',
    '/result',
    '/rule',
  ])('lists %s as {data, links}, page 1 of 10 items unless asked otherwise', async (path) => {
    const root = t.rootToken;
    const r = await v4('GET', path, { token: root });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Array.isArray(r.body.data)).toBe(true);
    expect(r.body.data.length).toBeLessThanOrEqual(10);
    expect(r.body.links.self).toBe(`/v4/api${path}?page=1`);
    const second = await v4('GET', `${path}?page=1&per_page=1`, { token: root });
    expect(second.body.data.length).toBeLessThanOrEqual(1);
  });

  it('pages organizations as 4.x does: per_page items, links to the next page', async () => {
    const root = t.rootToken;
    const all = await t.api('GET', '/organization', { token: root });
    const r = await v4('GET', '/organization?page=1&per_page=2', { token: root });
    expect(r.body.data.map((o: { id: number }) => o.id)).toEqual(
      all.body.slice(0, 2).map((o: { id: number }) => o.id),
    );
    if (all.body.length > 2) expect(r.body.links.next).toBe('/v4/api/organization?page=2&per_page=2');
  });

  it('creates a task with databases, tells its status, and lists its run by task', async () => {
    const posted = await v4('POST', '/task', {
      token: w.token,
      // As the 4.x client sends it: its study and store fields, which Federa does not have, are null.
      body: taskBody(w.collab, [w.orgA], {
        databases: [{ label: 'other', parameters: { query: 'q' } }],
        study_id: null,
        store_id: null,
      }),
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(201);
    expect(posted.body.databases).toEqual([{ label: 'other', parameters: '{"query":"q"}' }]);

    const status = await v4('GET', `/task/${posted.body.id}/status`, { token: w.token });
    expect(status).toEqual({ status: 200, body: { status: 'pending' } });

    const runs = await v4('GET', `/run?task_id=${posted.body.id}`, { token: w.token });
    expect(runs.status).toBe(200);
    expect(runs.body.data).toHaveLength(1);
    const run = await v4('GET', `/run/${runs.body.data[0].id}`, { token: w.token });
    expect(run.status).toBe(200);
    expect(run.body.status).toBe('pending');
    const results = await v4('GET', `/result?task_id=${posted.body.id}`, { token: w.token });
    expect(results.body.data.map((r: { id: number }) => r.id)).toEqual([runs.body.data[0].id]);
  });

  it('answers a GET asked again, unchanged, as the first time (a kept answer)', async () => {
    await v4('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    for (const path of ['/task', '/task?per_page=100', '/organization', `/organization/${w.orgA}`, '/run']) {
      const first = await v4('GET', path, { token: w.token });
      expect(first.status).toBe(200);
      expect(await v4('GET', path, { token: w.token }), path).toEqual(first);
    }
  });

  it('applies the same rules as the 3.x routes', async () => {
    const outsider = await t.fx.user(w.orgB, { roles: [] });
    const token = await outsider.token();
    const posted = await t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA]) });
    const three = await t.api('GET', `/task/${posted.body.id}`, { token });
    const status = await v4('GET', `/task/${posted.body.id}/status`, { token });
    expect(status.status).toBe(three.status);
    expect(status.status).toBe(401);
    expect((await v4('GET', '/task/999999/status', { token: w.token })).status).toBe(404);
    expect((await v4('GET', '/organization')).status).toBe(401);
  });

  it('answers a call made on the wrong surface with a 404 naming the other path', async () => {
    const root = t.rootToken;
    const threeOnly = await v4('GET', '/role/1/rule', { token: root });
    expect(threeOnly).toEqual({
      status: 404,
      body: {
        code: 'route_not_found',
        msg: 'No such endpoint: GET /v4/api/role/1/rule. It is part of the vantage6 3.x contract: GET /api/role/1/rule',
      },
    });
    const fourOnly = await t.api('GET', '/run', { token: root });
    expect(fourOnly.status).toBe(404);
    expect(fourOnly.body.msg).toBe(
      'No such endpoint: GET /api/run. It is part of the vantage6 4.x contract: GET /v4/api/run',
    );
    const status = await t.api('GET', '/task/1/status', { token: root });
    expect(status.body.msg).toBe(
      'No such endpoint: GET /api/task/1/status. It is part of the vantage6 4.x contract: GET /v4/api/task/1/status',
    );
    const nowhere = await v4('GET', '/nothing', { token: root });
    expect(nowhere.body.msg).toBe('No such endpoint: GET /v4/api/nothing');
  });

  it('serves the VPN routes 4.x kept, as at /api', async () => {
    const root = t.rootToken;
    for (const [method, path] of [
      ['GET', '/vpn'],
      ['GET', '/vpn/algorithm/addresses'],
      ['POST', '/port'],
    ] as const) {
      const four = await v4(method, path, { token: root, ...(method === 'POST' ? { body: {} } : {}) });
      const three = await t.api(method, path, { token: root, ...(method === 'POST' ? { body: {} } : {}) });
      expect([path, four.status, four.body]).toEqual([path, three.status, three.body]);
      expect(four.status).not.toBe(404);
    }
  });

  it('leaves the 3.x listings as they were: a bare list of every item', async () => {
    const root = t.rootToken;
    const r = await t.api('GET', '/organization', { token: root });
    expect(Array.isArray(r.body)).toBe(true);
  });
});
