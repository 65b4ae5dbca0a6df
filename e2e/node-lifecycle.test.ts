/**
 * Node lifecycle against the real server and Docker: refusing to start (wrong API key, encryption mismatch),
 * online status across a quick restart, and a run that survives a node restart (reattached, reported once).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import { RunStore, StartupError, WrongApiKeyError } from '@federa/node';
import {
  buildImage,
  createFederation,
  type E2eServer,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';
import { join } from 'node:path';

const tag = `lc${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const SLOW_IMAGE = `federa-test/${tag}-slow:local`;
let server: E2eServer;
const names: string[] = [];
const started: StartedNode[] = [];

beforeAll(async () => {
  buildImage(
    SLOW_IMAGE,
    'FROM federa/helper:local\nCMD ["/bin/sh", "-c", "echo working; sleep 4; printf \'json.{\\"ok\\": true}\' > $OUTPUT_FILE; echo finished"]\n',
  );
  server = await startE2eServer();
}, 60_000);

afterAll(async () => {
  for (const n of started) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of names) removeNodeObjects(n);
  try {
    execFileSync('docker', ['rmi', '-f', SLOW_IMAGE], { stdio: 'ignore' });
  } catch {
    /* gone */
  }
}, 60_000);

const nodeStatus = async (id: number): Promise<string | null> =>
  (await server.api<{ status: string | null }>('GET', `/node/${id}`)).body.status;

describe('node lifecycle', () => {
  it('refuses a wrong API key and an encryption setting that differs from the collaboration', async () => {
    const fed = await createFederation(server, true, `${tag}refuse`, ['age\n1\n', 'age\n2\n']);
    const org = fed.orgs[0]!;
    names.push(`${tag}-wrongkey`, `${tag}-mismatch`);
    await expect(
      startE2eNode(server, { ...org, apiKey: 'not-a-key' }, `${tag}-wrongkey`, true),
    ).rejects.toThrow(WrongApiKeyError);
    const mismatch = startE2eNode(server, org, `${tag}-mismatch`, false);
    await expect(mismatch).rejects.toThrow(StartupError);
    await expect(mismatch).rejects.toThrow(
      /is encrypted, but .* sets encryption.enabled: false; set it to true/,
    );
  }, 60_000);

  it('is online after a stop and an immediate start, and a run survives the restart: reattached and reported once', async () => {
    const fed = await createFederation(server, false, `${tag}restart`, ['age\n1\n', 'age\n2\n']);
    const org = fed.orgs[0]!;
    const name = `${tag}-restart`;
    names.push(name);
    const first = await startE2eNode(server, org, name, false);
    await until(
      'node online',
      () => nodeStatus(org.nodeId),
      (s) => s === 'online',
      10_000,
    );

    const posted = await server.api<{ id: number }>('POST', '/task', {
      name: 'slow',
      image: SLOW_IMAGE,
      collaboration_id: fed.collaborationId,
      organizations: [{ id: org.id, input: encodeBase64(Buffer.from('json.{}')) }],
    });
    expect(posted.status).toBe(201);
    const taskId = posted.body.id;
    const resultOf = async (): Promise<{
      id: number;
      status: string;
      log: string | null;
      finished_at: string | null;
      result: string | null;
    }> =>
      (
        await server.api<
          {
            id: number;
            status: string;
            log: string | null;
            finished_at: string | null;
            result: string | null;
          }[]
        >('GET', `/task/${taskId}/result`)
      ).body[0]!;
    await until('run active', resultOf, (r) => r.status === 'active', 30_000);

    // Stop mid-run: the container keeps running and the run stays in the node's record.
    await first.node.stop();
    const record = await RunStore.open(join(first.dataDir, 'runs.json'));
    expect(record.all().map((r) => r.phase)).toEqual(['running']);

    const second = await startE2eNode(server, org, name, false, '', undefined, first.configFile);
    started.push(second);
    await until(
      'node online again',
      () => nodeStatus(org.nodeId),
      (s) => s === 'online',
      10_000,
    );
    const done = await until('run finished', resultOf, (r) => r.finished_at !== null, 30_000);
    expect(done.status).toBe('completed');
    expect(Buffer.from(done.result!, 'base64').toString()).toBe('json.{"ok": true}');
    expect(done.log).toContain('working');
    expect(done.log).toContain('finished');
    // Reported once: once the node is done with it, a resynchronisation (which takes on what it fetches before it
    // returns) does not start it again.
    await second.node.runs.idle();
    await second.node.sync();
    expect(second.node.runs.activeRuns).toEqual([]);
    expect((await RunStore.open(join(first.dataDir, 'runs.json'))).all()).toEqual([]);
    expect(readFileSync(join(first.dataDir, 'runs.json'), 'utf8')).toContain('"runs": {}');

    // A kill request stops a running algorithm: the run ends 'killed by user' and its container is gone.
    const killMe = await server.api<{ id: number }>('POST', '/task', {
      name: 'slow',
      image: SLOW_IMAGE,
      collaboration_id: fed.collaborationId,
      organizations: [{ id: org.id, input: encodeBase64(Buffer.from('json.{}')) }],
    });
    const killedResult = async (): Promise<{ id: number; status: string }> =>
      (await server.api<{ id: number; status: string }[]>('GET', `/task/${killMe.body.id}/result`)).body[0]!;
    const active = await until('second run active', killedResult, (r) => r.status === 'active', 30_000);
    expect((await server.api('POST', '/kill/task', { id: killMe.body.id })).status).toBeLessThan(300);
    await until('killed', killedResult, (r) => r.status === 'killed by user', 10_000);
    await until(
      'container removed',
      async () => second.node.runs.activeRuns,
      (a) => a.length === 0,
      10_000,
    );
    const left = execFileSync(
      'docker',
      ['ps', '-aq', '--filter', `label=result_id=${active.id}`, '--filter', `label=node=${name}`],
      { encoding: 'utf8' },
    );
    expect(left.trim()).toBe('');
  }, 90_000);
});
