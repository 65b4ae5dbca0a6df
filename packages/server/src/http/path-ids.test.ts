/**
 * Every path id that is not a positive integer in range is a 400 naming the parameter, on every route with one,
 * with the audit log on (docs/security.md#path-ids-and-audit-entries): before, `GET /result/Infinity` reached the
 * audit log with a number it could not write and answered 503.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditPath } from '@federa/common';
import { call, startTestApp, type TestApp } from '@federa/testing';
import { POLICIES } from '../auth/policy.js';

let t: TestApp;
let dir: string;
let base: string;
const tokens: Record<string, string> = {};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-path-ids-'));
  t = await startTestApp({ auditDir: dir });
  // Over real HTTP: some routes set the socket's timeouts, which an injected request has not.
  base = `${await t.app.listen({ port: 0, host: '127.0.0.1' })}/api`;
  const org = await t.fx.organization();
  const collab = await t.fx.collaboration([org]);
  const node = await t.fx.node(org, collab);
  const task = await t.fx.task(collab, [org]);
  tokens.user = t.rootToken;
  tokens.node = await node.token();
  tokens.container = (
    await t.api('POST', '/token/container', {
      token: tokens.node,
      body: { task_id: task.id, image: 'example/image:latest' },
    })
  ).body.container_token as string;
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const BAD = [
  'Infinity',
  '-Infinity',
  'NaN',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '%20',
  '2147483648',
  '99999999999',
];
const ROUTES = Object.keys(POLICIES).filter((key) => key.includes('/:'));
/** Routes where id 0 names something: this server's own algorithm store. */
const ZERO_NAMES: ReadonlySet<string> = new Set(['GET /algorithmstore/:id']);

describe('path ids', () => {
  it('lists the routes with ids (the table is read)', () => {
    expect(ROUTES).toContain('GET /result/:id');
    expect(ROUTES).toContain('DELETE /role/:id/rule/:rule_id');
  });

  it.each(ROUTES)('%s refuses every id that is not a positive integer with 400 naming it', async (key) => {
    const [method, path] = key.split(' ') as [string, string];
    const names = [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
    const zero = ZERO_NAMES.has(key);
    for (const name of names)
      for (const bad of BAD.filter((b) => !zero || b !== '0')) {
        const url = path.replace(/:([a-z_]+)/g, (_m, p: string) => (p === name ? bad : '1'));
        const callers = POLICIES[key]!.callers;
        const kind = Array.isArray(callers) ? callers[0]! : 'user';
        const r = await call(base, method, url, { token: tokens[kind]! });
        expect({ url, status: r.status, code: (r.body as { code: string }).code }).toEqual({
          url,
          status: 400,
          code: 'validation_failed',
        });
        const body = r.body as { msg: string };
        expect(body.msg).toBe(
          zero
            ? `path parameter '${name}' must be an integer from 0 to 2147483647 written in decimal digits`
            : `path parameter '${name}' must be a positive integer (1 to 2147483647) written in decimal digits`,
        );
      }
  });

  it('are recorded in the audit log, as is a query number JSON cannot hold, and the chain verifies', async () => {
    expect((await call(base, 'GET', '/result/Infinity', { token: t.rootToken })).status).toBe(400);
    expect((await call(base, 'GET', '/result?page=Infinity', { token: t.rootToken })).status).toBe(400);
    const files = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
    const text = (await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')))).join('');
    const last = text.trim().split('\n').slice(-2);
    expect(last[0]).toContain('"params":{"id":"Infinity"}');
    expect(last[1]).toContain('"page":"Infinity"');
    const [report] = await verifyAuditPath(dir);
    expect(report?.problem).toBeUndefined();
  });
});
