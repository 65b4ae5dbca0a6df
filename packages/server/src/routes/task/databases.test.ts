/**
 * The databases a task asks for (docs/api.md#tasks): the vantage6 4.x list `databases` and the 3.x label `database`,
 * both stored and handed to the nodes, so a task never runs on other data than it asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startTestApp, taskBody, taskWorld, type TestApp } from '@federa/testing';

let t: TestApp;
let w: Awaited<ReturnType<typeof taskWorld>>;
beforeAll(async () => {
  t = await startTestApp();
  w = await taskWorld(t);
});
afterAll(async () => t.close());

const post = (extra: Record<string, unknown>) =>
  t.api('POST', '/task', { token: w.token, body: taskBody(w.collab, [w.orgA], extra) });
const taskCount = async () =>
  Number(
    (
      await t.ctx.dbh.db
        .selectFrom('task')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /task with databases', () => {
  it('stores the list, shows it on the task and to the node with its run, and names the first as `database`', async () => {
    const databases = [
      { label: 'other', type: 'csv', parameters: { query: 'select age from t', sheet_name: 'S1' } },
      { label: 'default' },
    ];
    const r = await post({ databases });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ database: 'other', databases });

    const got = await t.api('GET', `/task/${r.body.id}`, { token: w.token });
    expect(got.body).toMatchObject({ database: 'other', databases });

    // What the node reads for its run: the result with its task.
    const nodeToken = await w.nodeA.token();
    const open = await t.api('GET', `/result?task_id=${r.body.id}&include=task`, { token: nodeToken });
    expect(open.status).toBe(200);
    const runs = (Array.isArray(open.body) ? open.body : open.body.data) as {
      task: { database: string; databases: unknown };
    }[];
    expect(runs).toHaveLength(1);
    expect(runs[0]!.task).toMatchObject({ database: 'other', databases });

    // The container's token carries the list, as vantage6 4.x algorithms read it.
    const container = await t.api('POST', '/token/container', {
      token: nodeToken,
      body: { task_id: r.body.id, image: r.body.image },
    });
    expect(container.status).toBe(200);
    const sub = decodeJwt(container.body.container_token as string).sub as unknown as Record<string, unknown>;
    expect(sub.databases).toEqual(databases);
  });

  it('keeps the 3.x `database` as it was: the label, and no list', async () => {
    const r = await post({ database: 'postgres-db' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ database: 'postgres-db', databases: null });
    const nodeToken = await w.nodeA.token();
    const container = await t.api('POST', '/token/container', {
      token: nodeToken,
      body: { task_id: r.body.id, image: r.body.image },
    });
    const sub = decodeJwt(container.body.container_token as string).sub as unknown as Record<string, unknown>;
    expect(sub.database).toBe('postgres-db');
    expect(sub.databases).toEqual([{ label: 'postgres-db' }]);
  });

  it('accepts `database` beside `databases` when it names the first of them', async () => {
    const r = await post({ database: 'other', databases: [{ label: 'other' }] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ database: 'other', databases: [{ label: 'other' }] });
  });

  it.each([
    ['an unknown field', [{ label: 'other', sheet: 'x' }], "field 'databases.0.sheet' is not a known field"],
    ['a label that is not text', [{ label: { x: 1 } }], "field 'databases.0.label' must be string"],
    ['an empty label', [{ label: '' }], "field 'databases.0.label' must NOT have fewer than 1 characters"],
    ['a label with a comma', [{ label: 'a,b' }], "field 'databases.0.label' must match pattern"],
    [
      'parameters that are a list',
      [{ label: 'a', parameters: ['q'] }],
      "field 'databases.0.parameters' must be object",
    ],
    [
      'a parameter name with a space',
      [{ label: 'a', parameters: { 'my query': 'q' } }],
      "field 'databases.0.parameters.my query' is not a known field",
    ],
    ['databases that are not a list', { label: 'other' }, "field 'databases' must be array"],
    [
      'more than 32 databases',
      Array.from({ length: 33 }, () => ({ label: 'a' })),
      "field 'databases' must NOT have more than 32 items",
    ],
  ])('refuses %s with a 400 naming it, and stores nothing', async (_what, databases, message) => {
    const before = await taskCount();
    const r = await post({ databases });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.msg).toContain(message);
    expect(await taskCount()).toBe(before);
  });

  it('refuses `database` and `databases` that disagree, naming both, and stores nothing', async () => {
    const before = await taskCount();
    const r = await post({ database: 'default', databases: [{ label: 'other' }] });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe(
      "field 'database' ('default') is not the first label of 'databases' ('other'); send one of them, or the same database in both",
    );
    expect(await taskCount()).toBe(before);
  });
});
