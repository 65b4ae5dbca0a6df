import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf, startTestApp, storeApi, type TestApp } from '@federa/testing';
// @ts-expect-error a script of the main job, plain JavaScript
import { publishAverage } from './publish-average.mjs';

// The main job's catalogue: the example algorithm's author description loads as it is and is approved by two
// reviewers of two organizations, so a first user finds it in the store.

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => t.close());

describe('the main job publishes the average algorithm', () => {
  it('is approved and listed with its functions', async () => {
    const reviewers = [];
    for (let i = 0; i < 2; i++) {
      const org = await t.fx.organization();
      const u = await t.fx.user(org);
      reviewers.push({ username: u.username, organizationId: org, token: await u.token() });
    }
    const published = await publishAverage({
      storeUrl: `${url}/store/api`,
      rootToken: t.rootToken,
      descriptionFile: fileURLToPath(
        new URL('../../algorithms/average-python/algorithm-store.json', import.meta.url),
      ),
      image: 'federa/average-python:local',
      digest: digestOf(5),
      reviewers,
    });
    expect(published).toMatchObject({ status: 'approved', name: 'average', digest: digestOf(5) });
    const catalogue = await storeApi(t, 'GET', '/algorithm');
    expect(catalogue.body.data.map((a: { display_name: string }) => a.display_name)).toEqual([
      'Federated average',
    ]);
    expect(catalogue.body.data[0].functions.map((f: { name: string }) => f.name)).toEqual([
      'central_average',
      'partial_average',
    ]);
  });
});
