import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Fixtures,
  TEST_DIALECT,
  call,
  createTestDatabase,
  startTestServer,
  storedFiles,
  until,
  type TestDatabase,
  type TestServer,
} from '@federa/testing';

// A server that stopped between uploads and reports (docs/large-results.md#the-start-up-sweep): at its next start,
// what no run will name leaves the store, while it already answers requests.

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let dir: string;
let db: TestDatabase;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-sweep-start-'));
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

async function upload(server: TestServer, id: number, token: string, data: Buffer): Promise<number> {
  const r = await fetch(`${server.handle.apiUrl}/result/${id}/output`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/octet-stream',
      'x-federa-sha256': sha(data),
    },
    body: data,
  });
  await r.arrayBuffer();
  return r.status;
}

async function read(
  server: TestServer,
  id: number,
  token: string,
): Promise<{ status: number; body: Buffer }> {
  const r = await fetch(`${server.handle.apiUrl}/result/${id}/output`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()) };
}

describe.each(['folder', 'database'] as const)('a server restarted with a %s result store', (kind) => {
  it('removes at start the uploads no run will name, keeps the named and the open ones, and logs what it freed', async () => {
    const name = `sweep-${kind}`;
    const results = join(dir, `${name}-results`);
    // A database that outlives the server (not SQLite in memory).
    const uri = TEST_DIALECT === 'postgres' ? db.uri : `sqlite:///${name}.sqlite`;
    const config = { uri, result_store: { type: kind, directory: results } };
    const first = await startTestServer({ dir, name, config });
    const fx = new Fixtures(first.handle.ctx);
    const org = await fx.organization();
    const collab = await fx.collaboration([org]);
    const node = await fx.node(org, collab);
    const researcher = await fx.user(org, { roles: ['Researcher'] });
    const token = await node.token();
    const run = async () => (await fx.task(collab, [org])).resultIds[0]!;
    const [named, unnamed, gone, open] = [await run(), await run(), await run(), await run()];
    const data = {
      named: randomBytes(40_000),
      unnamed: randomBytes(30_000),
      gone: randomBytes(20_000),
      open: randomBytes(10_000),
    };
    expect(await upload(first, named, token, data.named)).toBe(201);
    const report = await call(first.handle.apiUrl, 'PATCH', `/result/${named}`, {
      token,
      body: { status: 'completed', log: 'ok', result_stored: { sha256: sha(data.named), size: 40_000 } },
    });
    expect(report.status).toBe(200);
    expect(await upload(first, unnamed, token, data.unnamed)).toBe(201);
    expect(await upload(first, gone, token, data.gone)).toBe(201);
    expect(await upload(first, open, token, data.open)).toBe(201);
    // What a stop leaves: a run finished without its upload being removed, a task deleted from the database
    // alone, a write cut in the middle.
    const rows = first.handle.ctx.dbh.db;
    await rows
      .updateTable('result')
      .set({ status: 'failed', log: 'crashed', finished_at: '2026-01-01T00:00:00.000000' })
      .where('id', '=', unnamed)
      .execute();
    const goneTask = await rows
      .selectFrom('result')
      .select('task_id')
      .where('id', '=', gone)
      .executeTakeFirstOrThrow();
    await rows.deleteFrom('result').where('id', '=', gone).execute();
    await rows.deleteFrom('task').where('id', '=', goneTask.task_id).execute();
    const cut = randomBytes(5_000);
    if (kind === 'folder')
      await writeFile(
        join(results, `.tmp-${randomBytes(8).toString('hex')}-result-${open}-${'0'.repeat(64)}`),
        cut,
      );
    else
      await rows
        .insertInto('result_chunk')
        .values({
          key: `tmp-${(Date.now() - 1000).toString(36)}-${randomBytes(8).toString('hex')}`,
          seq: 0,
          data: cut,
        })
        .execute();
    await first.handle.close();

    const second = await startTestServer({ dir, name, config });
    try {
      const swept = await until(
        'the sweep line',
        () => second.logs.find((line) => line.event === 'result_store.swept'),
        (line) => line !== undefined,
        20_000,
      );
      expect(swept).toMatchObject({
        level: 'info',
        store: kind,
        removed: 2,
        temporaries_removed: 1,
        bytes_freed: 30_000 + 20_000 + 5_000,
        kept_for_open_runs: 1,
        msg: 'result store swept: 3 leftover uploads removed, 55000 bytes freed',
      });
      // The server listened before the sweep ended: it does not wait for it.
      const at = (event: string) => second.logs.findIndex((line) => line.event === event);
      expect(at('server.listening')).toBeGreaterThanOrEqual(0);
      expect(at('server.listening')).toBeLessThan(at('result_store.swept'));

      const login = await call(second.handle.apiUrl, 'POST', '/token/user', {
        body: { username: researcher.username, password: researcher.password },
      });
      expect(login.status).toBe(200);
      const download = (id: number) => read(second, id, login.body.access_token as string);
      // What researchers and nodes see: the named output reads back whole, the unnamed is no output, and the open
      // run's node still reports the output it uploaded before the stop.
      const kept = await download(named);
      expect(kept.status).toBe(200);
      expect(kept.body.equals(data.named)).toBe(true);
      expect((await download(unnamed)).status).toBe(404);
      const late = await call(second.handle.apiUrl, 'PATCH', `/result/${open}`, {
        token, // the node's session outlives the restart
        body: { status: 'completed', log: 'ok', result_stored: { sha256: sha(data.open), size: 10_000 } },
      });
      expect(late.status).toBe(200);
      expect((await download(open)).body.equals(data.open)).toBe(true);
      if (kind === 'folder')
        expect(await storedFiles(results)).toEqual(
          [`result-${named}-${sha(data.named)}`, `result-${open}-${sha(data.open)}`].sort(),
        );
    } finally {
      await second.handle.close();
    }
  }, 60_000);
});
