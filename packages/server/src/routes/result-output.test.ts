import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, storedFiles, until, type TestApp } from '@federa/testing';

let t: TestApp;
let dir: string;
let base: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-result-output-'));
  t = await startTestApp({ config: { result_store: { type: 'folder', directory: dir, max_mb: 8 } } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const sha = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** An encrypted-looking output: the text a node sends (three base64 parts). */
const output = (bytes: number): Buffer =>
  Buffer.from(
    `RUs=$SVY=$${randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64')}`.slice(0, bytes),
    'latin1',
  );

/**
 * A cut in an upload: `after` bytes are sent, then the connection is dropped once `when` resolves (the server is
 * seen handling the piece).
 */
interface Cut {
  after: number;
  when: () => Promise<unknown>;
}

/** A real HTTP request with a body sent in pieces; with a `cut`, the connection is dropped part way. */
function send(
  method: string,
  path: string,
  token: string,
  body: Buffer,
  headers: Record<string, string>,
  cut?: Cut,
): Promise<{ status: number; body: Buffer; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-length': String(body.length), ...headers },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
      );
    });
    req.on('error', (error) =>
      cut === undefined ? reject(error) : resolve({ status: 0, body: Buffer.alloc(0), headers: {} }),
    );
    if (cut === undefined) {
      req.end(body);
      return;
    }
    req.write(body.subarray(0, cut.after));
    cut.when().then(
      () => req.destroy(),
      (error: unknown) => {
        req.destroy();
        reject(error as Error);
      },
    );
  });
}

async function run() {
  const org = await t.fx.organization();
  const other = await t.fx.organization();
  const collab = await t.fx.collaboration([org, other]);
  const node = await t.fx.node(org, collab);
  const otherNode = await t.fx.node(other, collab);
  const user = await t.fx.user(org, { roles: ['Researcher'] });
  const outsider = await t.fx.user(await t.fx.organization(), { roles: ['Researcher'] });
  const task = await t.fx.task(collab, [org]);
  const id = task.resultIds[0] as number;
  const nodeToken = await node.token();
  const userToken = await user.token();
  return {
    id,
    nodeId: node.id,
    nodeToken,
    userToken,
    otherNodeToken: await otherNode.token(),
    outsiderToken: await outsider.token(),
    upload: (body: Buffer, checksum = sha(body), cut?: Cut, token = nodeToken) =>
      send(
        'PUT',
        `/result/${id}/output`,
        token,
        body,
        {
          'content-type': 'application/octet-stream',
          'x-federa-sha256': checksum,
        },
        cut,
      ),
    download: (token = userToken) => send('GET', `/result/${id}/output`, token, Buffer.alloc(0), {}),
    patch: (body: Record<string, unknown>) => t.api('PATCH', `/result/${id}`, { token: nodeToken, body }),
    view: async () => (await t.api('GET', `/result/${id}`, { token: userToken })).body,
  };
}

const parse = (b: Buffer): Record<string, unknown> => JSON.parse(b.toString()) as Record<string, unknown>;

describe('an output too large for a JSON body', () => {
  it('is uploaded as a stream, named by the report, kept as sent and downloaded byte for byte', async () => {
    const r = await run();
    const data = output(5 * 1024 * 1024 + 3);
    const up = await r.upload(data);
    expect(up.status).toBe(201);
    expect(parse(up.body)).toEqual({ sha256: sha(data), size: data.length });
    const done = await r.patch({
      status: 'completed',
      log: 'ok',
      result_stored: { sha256: sha(data), size: data.length },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      status: 'completed',
      result: null,
      result_stored: { size: data.length, sha256: sha(data) },
    });
    expect(await r.view()).toMatchObject({ result: null, result_stored: { size: data.length } });
    const down = await r.download();
    expect(down.status).toBe(200);
    expect(down.headers['x-federa-sha256']).toBe(sha(data));
    expect(down.headers['content-length']).toBe(String(data.length));
    expect(down.body.equals(data)).toBe(true);
    // At rest: the text the node sent (encrypted for the initiator), in one file named by result and checksum, in
    // the run's folder.
    expect((await readFile(join(dir, `result-${r.id}`, `result-${r.id}-${sha(data)}`))).equals(data)).toBe(
      true,
    );
    // The same report again is taken once; another output is refused.
    expect(
      (
        await r.patch({
          status: 'completed',
          log: 'ok',
          result_stored: { sha256: sha(data), size: data.length },
        })
      ).status,
    ).toBe(200);
    const again = await r.upload(output(100));
    expect(again.status).toBe(409);
    expect(parse(again.body)).toMatchObject({
      code: 'run_closed',
      msg: `Result ${r.id} is 'completed': no output can be uploaded to it any more.`,
    });
  });

  it('is refused when its bytes do not match their checksum, and then cannot become the result', async () => {
    const r = await run();
    const data = output(300_000);
    const wrong = await r.upload(data, sha('something else'));
    expect(wrong.status).toBe(400);
    expect(parse(wrong.body)).toMatchObject({ code: 'checksum_mismatch' });
    expect(parse(wrong.body).msg).toContain(`The ${data.length} bytes received have SHA-256 ${sha(data)}`);
    const report = await r.patch({
      status: 'completed',
      result_stored: { sha256: sha('something else'), size: data.length },
    });
    expect(report.status).toBe(400);
    expect(report.body.msg).toContain('was uploaded; upload it (PUT /result/');
    expect(await r.view()).toMatchObject({ status: 'pending', finished_at: null, result_stored: null });
  });

  it('leaves nothing when cut short, and a retry completes it', async () => {
    const r = await run();
    const data = output(3 * 1024 * 1024);
    const before = await storedFiles(dir);
    const files = (): Promise<string[]> => storedFiles(dir);
    const underWay = (): Promise<string[]> =>
      until('the upload written to a temporary file', files, (f) => f.length > before.length, 10_000);
    await r.upload(data, sha(data), { after: 1024 * 1024, when: underWay });
    await until('the temporary file removed', files, (f) => f.join() === before.join(), 10_000);
    const report = await r.patch({
      status: 'completed',
      result_stored: { sha256: sha(data), size: data.length },
    });
    expect(report.status).toBe(400);
    expect((await r.upload(data)).status).toBe(201);
    expect(
      (await r.patch({ status: 'completed', result_stored: { sha256: sha(data), size: data.length } }))
        .status,
    ).toBe(200);
    expect((await r.download()).body.equals(data)).toBe(true);
  });

  it('leaves the store with its task', async () => {
    const r = await run();
    const data = output(2000);
    await r.upload(data);
    await r.patch({ status: 'completed', result_stored: { sha256: sha(data), size: data.length } });
    const file = `result-${r.id}-${sha(data)}`;
    expect(await storedFiles(dir)).toContain(file);
    const taskId = (await r.view()).task.id as number;
    expect((await t.api('DELETE', `/task/${taskId}`, { token: t.rootToken })).status).toBe(200);
    expect(await storedFiles(dir)).not.toContain(file);
  });

  it('keeps one upload per run: each new output of an open run replaces the one before in the store', async () => {
    const r = await run();
    const files = async () => (await storedFiles(dir)).filter((f) => f.startsWith(`result-${r.id}-`));
    // A node uploading output after output (a hostile one fills the disk so) holds one object at a time.
    const outputs = [output(40_000), output(40_000), output(40_000)];
    for (const data of outputs) expect((await r.upload(data)).status).toBe(201);
    const last = outputs[2] as Buffer;
    expect(await files()).toEqual([`result-${r.id}-${sha(last)}`]);
    // The same output again keeps it; the report names it and it downloads.
    expect((await r.upload(last)).status).toBe(201);
    expect(
      (await r.patch({ status: 'completed', result_stored: { sha256: sha(last), size: last.length } }))
        .status,
    ).toBe(200);
    expect((await r.download()).body.equals(last)).toBe(true);
    expect(await files()).toEqual([`result-${r.id}-${sha(last)}`]);
  });

  it('is refused past result_store.max_mb', async () => {
    const r = await run();
    const big = await r.upload(output(9 * 1024 * 1024));
    expect(big.status).toBe(413);
    expect(parse(big.body).msg).toBe(`The output is larger than ${8 * 1024 * 1024} bytes.`);
  });

  it('is read with exactly the permission of the result, and uploaded only by its node', async () => {
    const r = await run();
    const data = output(1000);
    expect((await r.upload(data, sha(data), undefined, r.otherNodeToken)).status).toBe(401);
    expect((await r.upload(data, sha(data), undefined, r.userToken)).status).toBe(401);
    expect((await r.upload(data)).status).toBe(201);
    await r.patch({ status: 'completed', result_stored: { sha256: sha(data), size: data.length } });
    const refused = await r.download(r.outsiderToken);
    const viaResult = await t.api('GET', `/result/${r.id}`, { token: r.outsiderToken });
    expect(refused.status).toBe(viaResult.status);
    expect(parse(refused.body)).toEqual(viaResult.body);
    expect((await r.download(r.nodeToken)).body.equals(data)).toBe(true);
  });

  it('stays out of reach of an organization that joined the collaboration after the task was posted, and of its node', async () => {
    const r = await run();
    const data = output(1000);
    expect((await r.upload(data)).status).toBe(201);
    await r.patch({ status: 'completed', result_stored: { sha256: sha(data), size: data.length } });
    const taskBody = (await r.view()).task as { id: number };
    const task = (await t.api('GET', `/task/${taskBody.id}`, { token: t.rootToken })).body as {
      collaboration: { id: number };
    };
    const late = await t.fx.organization();
    const join = await t.api('POST', `/collaboration/${task.collaboration.id}/organization`, {
      token: t.rootToken,
      body: { id: late },
    });
    expect(join.status).toBe(200);
    const lateUser = await t.fx.user(late, { roles: ['Researcher'] });
    const lateNode = await t.fx.node(late, task.collaboration.id);
    for (const token of [await lateUser.token(), await lateNode.token()]) {
      const refused = await r.download(token);
      expect(refused.status).toBe(401);
      expect(parse(refused.body).msg).toMatch(/members of its task's collaboration when the task was posted/);
      expect(refused.body.includes(data)).toBe(false);
    }
  });

  it('is also how an inline result downloads, and a result without output is a 404', async () => {
    const r = await run();
    expect((await r.download()).status).toBe(404);
    await r.patch({ status: 'completed', result: 'aW5saW5l' });
    const down = await r.download();
    expect(down.body.toString()).toBe('aW5saW5l');
    expect(down.headers['x-federa-sha256']).toBe(sha('aW5saW5l'));
    expect(await r.view()).toMatchObject({ result: 'aW5saW5l', result_stored: null });
  });

  it('names the missing checksum header and the wrong content type', async () => {
    const r = await run();
    const bare = await send('PUT', `/result/${r.id}/output`, r.nodeToken, Buffer.from('x'), {
      'content-type': 'application/octet-stream',
    });
    expect(bare.status).toBe(400);
    expect(parse(bare.body).msg).toContain('x-federa-sha256');
    const json = await send('PUT', `/result/${r.id}/output`, r.nodeToken, Buffer.from('{}'), {
      'content-type': 'application/json',
      'x-federa-sha256': sha('{}'),
    });
    expect(json.status).toBe(400);
    expect(parse(json.body).msg).toBe('The output is sent as Content-Type: application/octet-stream.');
  });
});

describe('an upload that no report names', () => {
  it('is removed from the store when its run finishes without naming it', async () => {
    const r = await run();
    const data = output(2000);
    expect((await r.upload(data)).status).toBe(201);
    const file = `result-${r.id}-${sha(data)}`;
    expect(await storedFiles(dir)).toContain(file);
    expect((await r.patch({ status: 'failed', log: 'crashed after the upload' })).status).toBe(200);
    expect(await storedFiles(dir)).not.toContain(file);
    expect(await r.view()).toMatchObject({ status: 'failed', result_stored: null });
  });

  it('is removed from the store when its task is killed', async () => {
    const r = await run();
    const data = output(2000);
    expect((await r.upload(data)).status).toBe(201);
    const file = `result-${r.id}-${sha(data)}`;
    expect(await storedFiles(dir)).toContain(file);
    const taskId = (await r.view()).task.id as number;
    expect((await t.api('POST', '/kill/task', { token: t.rootToken, body: { id: taskId } })).status).toBe(
      200,
    );
    expect(await storedFiles(dir)).not.toContain(file);
    const view = await r.view();
    expect(view).toMatchObject({ result_stored: null });
    expect(String(view.status)).toContain('kill');
  });

  it("is removed from the store when its node's runs are killed (POST /kill/node/tasks), as for a killed task", async () => {
    const r = await run();
    const data = output(3000);
    expect((await r.upload(data)).status).toBe(201);
    const file = `result-${r.id}-${sha(data)}`;
    expect(await storedFiles(dir)).toContain(file);
    const kill = await t.api('POST', '/kill/node/tasks', { token: t.rootToken, body: { id: r.nodeId } });
    expect(kill.status).toBe(200);
    expect(kill.body.msg).toContain('1 open runs are marked killed');
    expect(await storedFiles(dir)).not.toContain(file);
    expect(await r.view()).toMatchObject({ status: 'killed by user', result_stored: null });
    expect((await r.download()).status).toBe(404);
  });

  it("a kill keeps the output a run that had already finished named, and removes only the killed runs' uploads", async () => {
    // A task for two organizations: one run finished with a stored output, the other is killed after an upload.
    const org = await t.fx.organization();
    const other = await t.fx.organization();
    const collab = await t.fx.collaboration([org, other]);
    const nodes = [await t.fx.node(org, collab), await t.fx.node(other, collab)];
    const user = await t.fx.user(org, { roles: ['Researcher'] });
    const task = await t.fx.task(collab, [org, other]);
    const [done, open] = task.resultIds as [number, number];
    const kept = output(4000);
    const lost = output(5000);
    const put = async (id: number, token: string, body: Buffer) =>
      send('PUT', `/result/${id}/output`, token, body, {
        'content-type': 'application/octet-stream',
        'x-federa-sha256': sha(body),
      });
    const [doneToken, openToken] = [await nodes[0]!.token(), await nodes[1]!.token()];
    expect((await put(done, doneToken, kept)).status).toBe(201);
    const report = await t.api('PATCH', `/result/${done}`, {
      token: doneToken,
      body: { status: 'completed', log: 'ok', result_stored: { sha256: sha(kept), size: kept.length } },
    });
    expect(report.status).toBe(200);
    expect((await put(open, openToken, lost)).status).toBe(201);
    expect((await t.api('POST', '/kill/task', { token: t.rootToken, body: { id: task.id } })).status).toBe(
      200,
    );
    const files = await storedFiles(dir);
    expect(files).toContain(`result-${done}-${sha(kept)}`);
    expect(files).not.toContain(`result-${open}-${sha(lost)}`);
    const down = await send('GET', `/result/${done}/output`, await user.token(), Buffer.alloc(0), {});
    expect(down.status).toBe(200);
    expect(down.body.equals(kept)).toBe(true);
  });
});
