import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf, startTestApp, storeApi, type TestApp } from '@federa/testing';
// @ts-expect-error a script of the main job, plain JavaScript
import { publishAlgorithm } from './publish-average.mjs';

// The main job's catalogue: the example algorithms' author descriptions load as they are and are approved by two
// reviewers of two organizations, so a first user finds them in the store with their functions.

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => t.close());

const description = (folder: string): string =>
  fileURLToPath(new URL(`../../algorithms/${folder}/algorithm-store.json`, import.meta.url));

describe('the main job publishes the example algorithms', () => {
  it('approves the average and the group means, listed with their functions', async () => {
    const reviewers = [];
    for (let i = 0; i < 2; i++) {
      const org = await t.fx.organization();
      const u = await t.fx.user(org);
      reviewers.push({ username: u.username, organizationId: org, token: await u.token() });
    }
    const storeUrl = `${url}/store/api`;
    const average = await publishAlgorithm({
      storeUrl,
      rootToken: t.rootToken,
      descriptionFile: description('average-python'),
      image: 'federa/average-python:local',
      digest: digestOf(5),
      reviewers,
    });
    expect(average).toMatchObject({ status: 'approved', name: 'average', digest: digestOf(5) });
    const groupMeans = await publishAlgorithm({
      storeUrl,
      rootToken: t.rootToken,
      descriptionFile: description('group-means'),
      image: 'federa/group-means:local',
      digest: digestOf(6),
      reviewers,
    });
    expect(groupMeans).toMatchObject({ status: 'approved', name: 'group-means', digest: digestOf(6) });

    const catalogue = await storeApi(t, 'GET', '/algorithm');
    type Listed = {
      display_name: string;
      functions: {
        name: string;
        arguments: { name: string; type: string }[];
        databases: { name: string }[];
        ui_visualizations: { name: string; type: string }[];
        output?: unknown;
      }[];
    };
    const listed = catalogue.body.data as Listed[];
    expect(listed.map((a) => a.display_name)).toEqual(['Group means', 'Federated average']);
    expect(listed[1]!.functions.map((f) => f.name)).toEqual(['central_average', 'partial_average']);
    const [central, partial] = listed[0]!.functions;
    expect([central!.name, partial!.name]).toEqual(['central_group_means', 'partial_group_means']);
    expect(central!.arguments.map((a) => [a.name, a.type])).toEqual([
      ['column', 'column'],
      ['group_by', 'column'],
    ]);
    expect(central!.databases.map((d) => d.name)).toEqual(['Data']);
    expect(central!.ui_visualizations.map((v) => [v.name, v.type])).toEqual([
      ['Means', 'table'],
      ['Group sizes', 'histogram'],
    ]);
    expect(central!.output).toEqual({ kind: 'group_means', means: 'means', counts: 'counts' });
  });
});
