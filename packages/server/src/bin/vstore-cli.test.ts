import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT_PASSWORD,
  averageDescription,
  digestOf,
  startTestApp,
  storeApi,
  type TestApp,
} from '@federa/testing';
import { startStore } from '../store/standalone.js';
import { runStoreCli } from './vstore-cli.js';

// An author submits an algorithm from its JSON file and a reviewer approves it, from the command line.

let t: TestApp;
let url: string;
let dir: string;
beforeAll(async () => {
  t = await startTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'federa-vstore-cli-'));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

async function vstore(args: string[], password: string) {
  const out: string[] = [];
  const err: string[] = [];
  const reason = await runStoreCli(args, {
    out: (x) => void out.push(x),
    err: (x) => void err.push(x),
    start: startStore,
    env: { FEDERA_PASSWORD: password },
  });
  return { reason, out: out.join(''), err: err.join('') };
}

describe('vstore submit and review', () => {
  it("submits an author's JSON file and lets the assigned reviewer approve it", async () => {
    const file = join(dir, 'algorithm.json');
    await writeFile(file, JSON.stringify(averageDescription(`reg.example.org/average:1@${digestOf(9)}`)));
    const login = ['--store', `${url}/store/api`, '--server', `${url}/api`];
    const submitted = await vstore(['submit', file, ...login, '--username', 'root'], ROOT_PASSWORD);
    expect(submitted.err).toBe('');
    expect(submitted.out).toMatch(/^algorithm (\d+) \(average\) submitted: awaiting reviewer assignment\n$/);
    const id = Number(/algorithm (\d+)/.exec(submitted.out)?.[1]);

    const org = await t.fx.organization();
    const reviewer = await t.fx.user(org);
    const entry = await storeApi(t, 'POST', '/user', {
      token: t.rootToken,
      body: { username: reviewer.username, organization_id: org, roles: ['reviewer'] },
    });
    await storeApi(t, 'POST', '/review', {
      token: t.rootToken,
      body: { algorithm_id: id, reviewer_id: entry.body.id },
    });
    const noComment = await vstore(
      ['review', String(id), ...login, '--username', reviewer.username, '--reject'],
      reviewer.password,
    );
    expect(noComment).toMatchObject({ reason: 'failure', err: 'vstore: a rejection needs --comment\n' });
    const approved = await vstore(
      ['review', String(id), ...login, '--username', reviewer.username, '--approve', '--comment', 'fine'],
      reviewer.password,
    );
    expect(approved.out).toContain(`algorithm ${id} is under review (still needed:`);
    const wrong = await vstore(
      ['submit', join(dir, 'missing.json'), ...login, '--username', 'root'],
      ROOT_PASSWORD,
    );
    expect(wrong.err).toContain('is not a readable JSON file');
  });
});
