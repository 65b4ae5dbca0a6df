import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { averageDescription, digestOf, startTestApp, storeApi, type TestApp } from '@federa/testing';

// The store inside a server, driven as its users would: an author submits, a store manager assigns reviewers, the
// reviewers decide, and the review rules hold at each step (docs/store.md).

let t: TestApp;
let dir: string;
let root: string;
let dev: { id: number; token: string };
let r1: { id: number; token: string };
let r2: { id: number; token: string };
let viewer: string;

/** A user of the server, known to the store with `roles`. */
async function storeUser(org: number, roles: string[]): Promise<{ id: number; token: string }> {
  const u = await t.fx.user(org);
  const token = await u.token();
  if (roles.length === 0) return { id: 0, token };
  const r = await storeApi(t, 'POST', '/user', {
    token: root,
    body: { username: u.username, organization_id: org, roles },
  });
  expect(r.status).toBe(201);
  return { id: r.body.id, token };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-store-audit-'));
  t = await startTestApp({ auditDir: dir });
  root = t.rootToken;
  const [a, b] = [await t.fx.organization(), await t.fx.organization()];
  dev = await storeUser(a, ['developer', 'reviewer']);
  r1 = await storeUser(a, ['reviewer']);
  r2 = await storeUser(b, ['reviewer']);
  viewer = (await storeUser(b, [])).token;
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const submit = async (body: unknown, token = dev.token) => storeApi(t, 'POST', '/algorithm', { token, body });
const assign = async (algorithm_id: number, reviewer_id: number) =>
  storeApi(t, 'POST', '/review', { token: root, body: { algorithm_id, reviewer_id } });

describe('submitting an algorithm', () => {
  it("loads the author's vantage6 JSON as it is, and names the field that is missing or wrong", async () => {
    const missing = averageDescription('reg.example.org/average:1') as Record<string, unknown>;
    delete missing.code_url;
    const r = await submit(missing);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'validation_failed', message: { code_url: 'is required' } });
    expect(r.body.msg).toContain("'code_url'");

    const wrongType = averageDescription('reg.example.org/average:1');
    (wrongType.functions[0]!.arguments![0] as { type: string }).type = 'decimal';
    const w = await submit(wrongType);
    expect(w.status).toBe(400);
    expect(w.body.msg).toContain("'functions[0].arguments[0].type'");

    const badDefault = averageDescription('reg.example.org/average:1');
    Object.assign(badDefault.functions[0]!.arguments![2]!, { default_value: '[1, "x"]' });
    expect((await submit(badDefault)).body.msg).toContain("'functions[0].arguments[2].default_value'");

    const unknown = { ...averageDescription('reg.example.org/average:1'), colour: 'blue' };
    expect((await submit(unknown)).body.msg).toContain("'colour'");

    const badDigest = averageDescription('reg.example.org/average:1@sha256:abc');
    expect((await submit(badDigest)).body.msg).toContain("'image'");

    const ok = await submit(averageDescription('reg.example.org/average:1'));
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      status: 'awaiting reviewer assignment',
      image: 'reg.example.org/average:1',
      digest: null,
    });
    expect(ok.body.functions.map((f: { name: string }) => f.name)).toEqual([
      'central_average',
      'partial_average',
    ]);
    expect(ok.body.functions[0].arguments[1]).toMatchObject({
      name: 'rounding',
      allowed_values: ['none', 'two'],
    });
    expect(ok.body.functions[0].ui_visualizations[0].schema.keys).toEqual(['average']);
    expect(ok.body.functions[0].output).toBeNull();
  });

  it("keeps a function's declared output for the nodes, and names a wrong one's field", async () => {
    const declared = averageDescription('reg.example.org/counts:1');
    Object.assign(declared.functions[1]!, { output: { kind: 'count_table', counts: 'counts' } });
    const ok = await submit(declared);
    expect(ok.status).toBe(201);
    expect(ok.body.functions[1].output).toEqual({ kind: 'count_table', counts: 'counts' });
    const read = await storeApi(t, 'GET', `/algorithm/${ok.body.id}`, { token: root });
    expect(read.body.functions[1].output).toEqual({ kind: 'count_table', counts: 'counts' });

    const wrongKind = averageDescription('reg.example.org/counts:2');
    Object.assign(wrongKind.functions[0]!, { output: { kind: 'histogram', counts: 'n' } });
    const w = await submit(wrongKind);
    expect(w.status).toBe(400);
    expect(w.body.msg).toContain("'functions[0].output.kind' 'kind' must be one of: count_table");
    const missingKey = averageDescription('reg.example.org/counts:3');
    Object.assign(missingKey.functions[0]!, { output: { kind: 'group_means', means: 'm' } });
    expect((await submit(missingKey)).body.msg).toContain("'functions[0].output.counts'");
  });

  it('is for developers only; a viewer sees only approved algorithms', async () => {
    const r = await submit(averageDescription('reg.example.org/other:1'), viewer);
    expect(r.status).toBe(401);
    expect(r.body.msg).toContain("'developer'");
    const listed = await storeApi(t, 'GET', '/algorithm', {
      token: viewer,
      query: { in_review_process: true },
    });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
    const mine = await storeApi(t, 'GET', '/algorithm', {
      token: dev.token,
      query: { in_review_process: true },
    });
    expect(mine.body.data.length).toBeGreaterThan(0);
  });
});

describe('reviewing', () => {
  it('refuses an author reviewing their own, an unpinned image, and approves with enough reviewers from enough organizations', async () => {
    const a = await submit(averageDescription('reg.example.org/average:2'));
    const id = a.body.id as number;

    const own = await assign(id, dev.id);
    expect(own.status).toBe(400);
    expect(own.body).toMatchObject({ code: 'review_refused' });
    expect(own.body.msg).toContain('assign_review_own_algorithm');

    const first = await assign(id, r1.id);
    expect(first.status).toBe(201);
    expect((await storeApi(t, 'GET', `/algorithm/${id}`, { token: dev.token })).body.status).toBe(
      'under review',
    );

    const unpinned = await storeApi(t, 'POST', `/review/${first.body.id}/approve`, {
      token: r1.token,
      body: {},
    });
    expect(unpinned.status).toBe(400);
    expect(unpinned.body.code).toBe('image_not_pinned');

    // The author pins the image: what the reviewers looked at changed, so their reviews start over.
    const pinned = await storeApi(t, 'PATCH', `/algorithm/${id}`, {
      token: dev.token,
      body: { image: `reg.example.org/average:2@${digestOf(2)}` },
    });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ digest: digestOf(2), status: 'awaiting reviewer assignment' });
    const badId = await storeApi(t, 'PATCH', '/algorithm/first', { token: dev.token, body: {} });
    expect(badId.status).toBe(400);
    expect(badId.body.msg).toContain('id');
    const dropped = await storeApi(t, 'GET', `/review/${first.body.id}`, { token: root });
    expect(dropped.body.status).toBe('dropped');

    const rev1 = await assign(id, r1.id);
    const notYours = await storeApi(t, 'POST', `/review/${rev1.body.id}/approve`, {
      token: r2.token,
      body: {},
    });
    expect(notYours.status).toBe(401);
    const one = await storeApi(t, 'POST', `/review/${rev1.body.id}/approve`, {
      token: r1.token,
      body: { comment: 'fine' },
    });
    expect(one.status).toBe(200);
    expect(one.body.algorithm_status).toBe('under review');
    expect(one.body.still_needed).toContain('min_reviewers 2');
    expect(one.body.still_needed).toContain('min_reviewing_organizations 2');

    const rev2 = await assign(id, r2.id);
    const two = await storeApi(t, 'POST', `/review/${rev2.body.id}/approve`, { token: r2.token, body: {} });
    expect(two.body.algorithm_status).toBe('approved');

    const listed = await storeApi(t, 'GET', '/algorithm', { query: { search: 'average' } });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((x: { id: number }) => x.id)).toEqual([id]);
    const fn = await storeApi(t, 'GET', `/algorithm/${id}/function/central_average`);
    expect(fn.body.arguments.map((x: { name: string }) => x.name)).toEqual([
      'column_name',
      'rounding',
      'org_ids',
    ]);
    expect(
      (await storeApi(t, 'PATCH', `/algorithm/${id}`, { token: dev.token, body: { description: 'x' } })).body
        .code,
    ).toBe('review_refused');
  });

  it('lets reviewers from one organization approve only where the policy says one is enough', async () => {
    const a = await submit(averageDescription(`reg.example.org/sum:1@${digestOf(11)}`, 'sum'));
    const rev = await assign(a.body.id, r1.id);
    const plain = await storeUser(await t.fx.organization(), ['viewer']);
    const refused = await assign(a.body.id, plain.id);
    expect(refused.body).toMatchObject({ code: 'review_refused' });
    expect(refused.body.msg).toContain("'reviewer'");
    const approved = await storeApi(t, 'POST', `/review/${rev.body.id}/approve`, { token: r1.token });
    expect(approved.body, JSON.stringify(approved.body)).toMatchObject({ algorithm_status: 'under review' });
    const policy = await storeApi(t, 'PATCH', '/policy', {
      token: root,
      body: { min_reviewers: 1, min_reviewing_organizations: 1 },
    });
    expect(policy.body).toMatchObject({ min_reviewers: 1, min_reviewing_organizations: 1 });
    expect(
      (await storeApi(t, 'PATCH', '/policy', { token: r1.token, body: { min_reviewers: 1 } })).status,
    ).toBe(401);

    // A new version of the same image, approved, replaces the old one, which stays in the history.
    const v2 = await submit(averageDescription(`reg.example.org/sum:2@${digestOf(12)}`, 'sum'));
    const rev2 = await assign(v2.body.id, r2.id);
    const done = await storeApi(t, 'POST', `/review/${rev2.body.id}/approve`, { token: r2.token });
    expect(done.body.algorithm_status).toBe('approved');
    // v1 was still under review (one approval short before the policy changed): it is not replaced.
    const v3 = await submit(averageDescription(`reg.example.org/sum:3@${digestOf(13)}`, 'sum'));
    const rev3 = await assign(v3.body.id, r1.id);
    const replacing = await storeApi(t, 'POST', `/review/${rev3.body.id}/approve`, { token: r1.token });
    expect(replacing.body).toMatchObject({ algorithm_status: 'approved', replaced: [v2.body.id] });
    const old = await storeApi(t, 'GET', `/algorithm/${v2.body.id}`, { token: root });
    expect(old.body).toMatchObject({ status: 'replaced', replaced_by_id: v3.body.id });
    expect(old.body.invalidated_at).not.toBeNull();
    const history = await storeApi(t, 'GET', '/algorithm', {
      token: root,
      query: { invalidated: true, name: 'sum' },
    });
    expect(history.body.data.map((x: { id: number }) => x.id)).toEqual([v2.body.id]);

    // A researcher whose task ran v2 still reads its functions and views: by id, and by its image at its digest.
    const asViewer = await storeApi(t, 'GET', `/algorithm/${v2.body.id}`, { token: viewer });
    expect(asViewer.status).toBe(200);
    expect(asViewer.body.functions.map((f: { name: string }) => f.name)).toEqual([
      'central_average',
      'partial_average',
    ]);
    const byDigest = await storeApi(t, 'GET', '/algorithm', {
      token: viewer,
      query: { image: `reg.example.org/sum:2@${digestOf(12)}`, status: 'replaced' },
    });
    expect(byDigest.body.data.map((x: { id: number }) => x.id)).toEqual([v2.body.id]);
    // The catalogue itself lists the approved version only; versions never approved stay hidden.
    const listed = await storeApi(t, 'GET', '/algorithm', { token: viewer, query: { name: 'sum' } });
    expect(listed.body.data.map((x: { id: number }) => x.id)).toEqual([v3.body.id]);
    expect((await storeApi(t, 'GET', `/algorithm/${a.body.id}`, { token: viewer })).status).toBe(404);
    expect(
      (await storeApi(t, 'GET', '/algorithm', { token: viewer, query: { status: 'under review' } })).body
        .data,
    ).toEqual([]);
  });

  it('rejects only with a comment, and store managers alone invalidate', async () => {
    const a = await submit(averageDescription(`reg.example.org/bad:1@${digestOf(21)}`, 'bad'));
    const rev = await assign(a.body.id, r1.id);
    const bare = await storeApi(t, 'POST', `/review/${rev.body.id}/reject`, { token: r1.token, body: {} });
    expect(bare.status).toBe(400);
    expect(bare.body.msg).toContain("'comment'");
    const rejected = await storeApi(t, 'POST', `/review/${rev.body.id}/reject`, {
      token: r1.token,
      body: { comment: 'reads files outside its database' },
    });
    expect(rejected.body).toMatchObject({
      algorithm_status: 'rejected',
      comment: 'reads files outside its database',
    });

    const b = await submit(averageDescription(`reg.example.org/gone:1@${digestOf(22)}`, 'gone'));
    expect(
      (await storeApi(t, 'POST', `/algorithm/${b.body.id}/invalidate`, { token: dev.token })).status,
    ).toBe(401);
    const gone = await storeApi(t, 'POST', `/algorithm/${b.body.id}/invalidate`, { token: root });
    expect(gone.body.status).toBe('removed');
  });

  it('writes every step to the audit log', async () => {
    const events = (await readFile(join(dir, 'server.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string });
    const names = new Set(events.map((e) => e.event));
    for (const e of [
      'store.user.roles',
      'store.algorithm.submitted',
      'store.algorithm.updated',
      'store.review.assigned',
      'store.review.approved',
      'store.algorithm.approved',
      'store.algorithm.replaced',
      'store.review.rejected',
      'store.algorithm.rejected',
      'store.algorithm.invalidated',
      'store.policy.changed',
    ])
      expect(names, e).toContain(e);
  });
});
