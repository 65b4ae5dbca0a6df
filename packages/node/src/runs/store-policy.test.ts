import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { averageDescription, digestOf, startTestApp, storeApi, type TestApp } from '@federa/testing';
import { checkStorePolicies, httpStoreLookup, type StorePolicyConfig } from './store-policy.js';

// A node's store policies against a real store (the one inside a server, over HTTP): what runs, and which policy
// says no.

let t: TestApp;
let storeUrl: string;
const approved = `reg.example.org/average:1@${digestOf(31)}`;
const pending = `reg.example.org/pending:1@${digestOf(32)}`;
const lookup = httpStoreLookup(2000);
const input = (method: string) => Buffer.from(`json.${JSON.stringify({ method, kwargs: {} })}`);
const policy = (o: Partial<StorePolicyConfig>): StorePolicyConfig => ({
  allowedAlgorithms: undefined,
  allowedAlgorithmStores: [storeUrl],
  allowEitherWhitelistOrStore: false,
  allowedFunctions: undefined,
  ...o,
});

beforeAll(async () => {
  t = await startTestApp();
  storeUrl = `${await t.app.listen({ host: '127.0.0.1', port: 0 })}/store/api`;
  await storeApi(t, 'PATCH', '/policy', {
    token: t.rootToken,
    body: { min_reviewers: 1, min_reviewing_organizations: 1 },
  });
  const who = await t.fx.user(await t.fx.organization());
  const reviewer = await storeApi(t, 'POST', '/user', {
    token: t.rootToken,
    body: { username: who.username, roles: ['reviewer'] },
  });
  for (const image of [approved, pending]) {
    const made = await storeApi(t, 'POST', '/algorithm', {
      token: t.rootToken,
      body: averageDescription(image, image.includes('pending') ? 'pending' : 'average'),
    });
    if (image === pending) continue;
    const review = await storeApi(t, 'POST', '/review', {
      token: t.rootToken,
      body: { algorithm_id: made.body.id, reviewer_id: reviewer.body.id },
    });
    await storeApi(t, 'POST', `/review/${review.body.id}/approve`, { token: await who.token() });
  }
});
afterAll(async () => t.close());

describe('allowed_algorithm_stores', () => {
  it('runs the approved image at its digest and refuses an unapproved one, naming the policy', async () => {
    expect(
      await checkStorePolicies({ image: approved }, input('central_average'), policy({}), lookup),
    ).toEqual({ allowed: true });
    const refused = await checkStorePolicies(
      { image: pending },
      input('central_average'),
      policy({}),
      lookup,
    );
    expect(refused.allowed).toBe(false);
    expect(!refused.allowed && refused.reason).toContain('policy allowed_algorithm_stores: the image');
    const otherDigest = `reg.example.org/average:1@${digestOf(99)}`;
    expect((await checkStorePolicies({ image: otherDigest }, input('x'), policy({}), lookup)).allowed).toBe(
      false,
    );
    const unpinned = await checkStorePolicies(
      { image: 'reg.example.org/average:1' },
      input('x'),
      policy({}),
      lookup,
    );
    expect(!unpinned.allowed && unpinned.reason).toContain('not pinned by a digest');
  });

  it('refuses rather than guess when no store can be reached', async () => {
    const far = policy({ allowedAlgorithmStores: ['http://127.0.0.1:9/store/api'] });
    const refused = await checkStorePolicies({ image: approved }, input('central_average'), far, lookup);
    expect(!refused.allowed && refused.reason).toContain('no algorithm store could be reached');
  });

  it('combines with the allow-list: either one, or both', async () => {
    const either = policy({
      allowedAlgorithms: ['reg\\.example\\.org/pending'],
      allowEitherWhitelistOrStore: true,
    });
    expect((await checkStorePolicies({ image: pending }, input('m'), either, lookup)).allowed).toBe(true);
    expect((await checkStorePolicies({ image: approved }, input('m'), either, lookup)).allowed).toBe(true);
    const both = policy({ allowedAlgorithms: ['reg\\.example\\.org/pending'] });
    const refused = await checkStorePolicies({ image: approved }, input('m'), both, lookup);
    expect(!refused.allowed && refused.reason).toContain('policy allowed_algorithms:');
    expect((await checkStorePolicies({ image: pending }, input('m'), both, lookup)).allowed).toBe(false);
  });

  it('allowed_functions runs only the functions it names', async () => {
    const fn = policy({ allowedAlgorithmStores: undefined, allowedFunctions: ['partial_average'] });
    expect((await checkStorePolicies({ image: pending }, input('partial_average'), fn, lookup)).allowed).toBe(
      true,
    );
    const refused = await checkStorePolicies({ image: pending }, input('central_average'), fn, lookup);
    expect(!refused.allowed && refused.reason).toContain(
      "policy allowed_functions: the function 'central_average'",
    );
  });
});
