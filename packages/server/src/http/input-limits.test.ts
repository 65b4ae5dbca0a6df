import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';

// Out-of-range and oversized input is a 400 (or 413) naming the field, on SQLite and PostgreSQL alike; before, the
// database refused it with a 500, or stored it (docs/security.md, "Input limits").

let t: TestApp;
let collab: number;
let org: number;
beforeAll(async () => {
  t = await startTestApp();
  const root = await t.ctx.dbh.db
    .selectFrom('user')
    .select('organization_id')
    .where('username', '=', 'root')
    .executeTakeFirstOrThrow();
  org = root.organization_id;
  collab = await t.fx.collaboration([org]);
  // A task, so that filters are evaluated against a row (PostgreSQL checks a LIKE pattern only then).
  await t.fx.task(collab, [org], { name: 'a task' });
});
afterAll(async () => t.close());

/** Sends a raw request as root; `body` is sent as is when it is a string. */
async function send(method: string, url: string, body?: unknown) {
  const r = await t.app.inject({
    method: method as 'GET',
    url: `/api${url}`,
    headers: {
      authorization: `Bearer ${t.rootToken}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { payload: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: r.statusCode, body: JSON.parse(r.body) as { msg: string; code: string } };
}

describe('out-of-range input answers 400 naming the field', () => {
  it.each([
    ['page=1e400', '/task?page=1e400', "query parameter 'page'"],
    ['page=Infinity', '/task?page=Infinity', "query parameter 'page'"],
    ['per_page=1e400', '/task?page=1&per_page=1e400', "query parameter 'per_page'"],
    ['a huge page', '/task?page=1099511627776&per_page=1000000000', "query parameter 'page'"],
    ['an id above 2^31 in the path', '/task/2147483648', "path parameter 'id'"],
    ['an id above 2^53 in the path', '/result/9007199254740993', "path parameter 'id'"],
    ['an id filter above 2^31', '/task?collaboration_id=2147483648', "query parameter 'collaboration_id'"],
    ['a node filter above 2^31', '/result?node_id=2147483648', "query parameter 'node_id'"],
    ['a NUL byte in a filter', '/task?name=a%00b', "query parameter 'name'"],
    ['a NUL byte in a date filter', '/result?assigned_from=2020-01-01%00', "query parameter 'assigned_from'"],
    ['a LIKE filter ending in a backslash', '/task?name=a%25%5C', "query parameter 'name'"],
    [
      'a LIKE filter of organizations ending in a backslash',
      '/organization?name=x%5C',
      "query parameter 'name'",
    ],
    ['a 12 KB filter', `/organization?name=${'x'.repeat(12_000)}`, "query parameter 'name'"],
  ])('%s', async (_what, url, field) => {
    const r = await send('GET', url);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.msg.startsWith(field)).toBe(true);
  });

  it('accepts an escaped backslash at the end of a LIKE filter, and ordinary paging', async () => {
    expect((await send('GET', '/task?name=a%5C%5C')).status).toBe(200);
    expect((await send('GET', '/task?page=2147483647&per_page=2147483647')).status).toBe(200);
  });

  it.each([
    ['a NUL byte', '/organization', { name: 'a\u0000b' }, "field 'name'"],
    [
      'an id above 2^31 in a list',
      '/collaboration',
      { name: 'c', organization_ids: [2 ** 31] },
      "field 'organization_ids.0'",
    ],
    [
      '1e400 in a number',
      '/collaboration',
      '{"name":"c2","organization_ids":[1e400]}',
      "field 'organization_ids.0'",
    ],
    ['1e400 in a text field', '/organization', '{"name":"o","country":1e400}', "field 'country'"],
    [
      '12 KB in an indexed column',
      '/collaboration',
      { name: 'n'.repeat(12_000), organization_ids: [] },
      "field 'name'",
    ],
  ])('a body with %s', async (_what, url, body, field) => {
    const r = await send('POST', url, body);
    expect(r.status).toBe(400);
    expect(r.body.msg.startsWith(field)).toBe(true);
  });
});

describe('length limits on every string field and on the body', () => {
  it('refuses a name longer than 255 characters, and stores nothing', async () => {
    const name = `long-${'y'.repeat(300)}`;
    const r = await send('POST', '/organization', { name });
    expect(r).toEqual({
      status: 400,
      body: expect.objectContaining({ msg: "field 'name' must NOT have more than 255 characters" }),
    });
    const listed = await send('GET', `/organization?name=long-%25`);
    expect(listed.body).toEqual([]);
  });

  it('refuses a 10 MiB firstname with 413 (body limit), a 300-character one with 400', async () => {
    const user = await t.fx.user(org);
    const huge = await send('PATCH', `/user/${user.id}`, { firstname: 'x'.repeat(10 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('payload_too_large');
    const long = await send('PATCH', `/user/${user.id}`, { firstname: 'x'.repeat(300) });
    expect(long.status).toBe(400);
    expect(long.body.msg).toMatch(/^field 'firstname' /);
    const stored = await t.ctx.dbh.db
      .selectFrom('user')
      .select('firstname')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored.firstname).toBe('Test');
  });

  it('accepts task input larger than the general body limit (up to task_body_limit_bytes)', async () => {
    await t.fx.node(org, collab);
    const input = 'A'.repeat(2 * 1024 * 1024);
    const r = await send('POST', '/task', {
      name: 'big input',
      image: 'example/image:latest',
      collaboration_id: collab,
      organizations: [{ id: org, input }],
    });
    expect(r.status).toBe(201);
  });
});

describe('configured limits', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await startTestApp({
      config: { body_limit_bytes: 4096, task_body_limit_bytes: 8192, limits: { string_chars: 20 } },
    });
  });
  afterAll(async () => small.close());

  it('apply to names, the body and task input', async () => {
    const name = await small.api('POST', '/organization', {
      token: small.rootToken,
      body: { name: 'x'.repeat(21) },
    });
    expect(name.status).toBe(400);
    expect(name.body.msg).toBe("field 'name' must NOT have more than 20 characters");
    const body = await small.api('POST', '/organization', {
      token: small.rootToken,
      body: { name: 'ok', address1: 'a'.repeat(5000) },
    });
    expect(body.status).toBe(413);
    const { organization_id: o } = await small.ctx.dbh.db
      .selectFrom('user')
      .select('organization_id')
      .where('username', '=', 'root')
      .executeTakeFirstOrThrow();
    const c = await small.fx.collaboration([o]);
    await small.fx.node(o, c);
    const task = await small.api('POST', '/task', {
      token: small.rootToken,
      body: {
        name: 't',
        image: 'i',
        collaboration_id: c,
        organizations: [{ id: o, input: 'A'.repeat(9000) }],
      },
    });
    expect(task.status).toBe(413);
    expect(task.body.msg).toBe('The request body is larger than 8192 bytes.');
  });
});
