/**
 * End to end, all real (server, node in-process, Docker): the audit trail of a run (docs/audit.md). The node records
 * the image actually run by digest, the task, the initiating user and organization, the data source and the hash
 * of the input it received before the container starts, and the outcome after; the server records the task post.
 * A node that cannot write its audit log starts no container, and does not start at all.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64, verifyAuditPath } from '@federa/common';

import {
  buildImage,
  createFederation,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  until,
  type E2eServer,
  type Federation,
  type StartedNode,
} from '@federa/testing';

const tag = `au${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const IMAGE = `federa-test/${tag}-echo:local`;
const serverAudit = mkdtempSync(join(tmpdir(), `federa-${tag}-server-audit-`));

let server: E2eServer;
let fed: Federation;
let node: StartedNode;

type Entry = Record<string, unknown> & { seq: number; event: string };
const entriesOf = (file: string): Entry[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);

beforeAll(async () => {
  buildImage(
    IMAGE,
    'FROM federa/helper:local\nCMD ["/bin/sh", "-c", "cp \\"$INPUT_FILE\\" \\"$OUTPUT_FILE\\"; echo copied"]\n',
  );
  server = await startE2eServer('127.0.0.1', { auditDir: serverAudit });
  fed = await createFederation(server, false, tag, ['age\n11\n', 'age\n22\n']);
  node = await startE2eNode(server, fed.orgs[0]!, `${tag}-0`, false);
}, 120_000);

afterAll(async () => {
  await node?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
  removeNodeObjects(`${tag}-1`);
  rmSync(serverAudit, { recursive: true, force: true });
  try {
    execFileSync('docker', ['rmi', '-f', IMAGE], { stdio: 'ignore' });
  } catch {
    /* gone already */
  }
}, 60_000);

async function runTask(input: string): Promise<{ taskId: number; status: string; log: string | null }> {
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'audited',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [{ id: fed.orgs[0]!.id, input }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const [result] = await until(
    'the run is finished',
    async () =>
      (
        await server.api<{ status: string; log: string | null; finished_at: string | null }[]>(
          'GET',
          `/task/${posted.body.id}/result`,
        )
      ).body,
    (rs) => rs.length === 1 && rs[0]!.finished_at !== null,
    60_000,
    100,
  );
  return { taskId: posted.body.id, status: result!.status, log: result!.log };
}

describe('the audit trail of a run', () => {
  it('records the image by digest, the task, who asked, the data source and the input hash, then the outcome', async () => {
    const input = encodeBase64(Buffer.from('json.{"method": "audited"}'));
    const run = await runTask(input);
    expect(run.status).toBe('completed');

    const all = entriesOf(join(node.dataDir, 'audit', 'node.jsonl'));
    expect(all[0]).toMatchObject({
      seq: 1,
      event: 'node.started',
      node_id: fed.orgs[0]!.nodeId,
      organization_id: fed.orgs[0]!.id,
    });
    const started = all.find((e) => e.event === 'run.started' && e.task_id === run.taskId);
    const imageId = execFileSync('docker', ['image', 'inspect', '-f', '{{.Id}}', IMAGE], {
      encoding: 'utf8',
    }).trim();
    expect(started).toMatchObject({
      image: IMAGE,
      image_id: imageId,
      initiating_user_id: 1,
      initiating_organization_id: fed.orgs[0]!.id,
      collaboration_id: fed.collaborationId,
      database: 'default',
      databases: ['default'],
      input_sha256: createHash('sha256').update(input).digest('hex'),
      input_bytes: input.length,
    });
    const finished = all.find((e) => e.event === 'run.finished' && e.task_id === run.taskId);
    expect(finished).toMatchObject({
      status: 'completed',
      result_id: started?.result_id,
      run_id: started?.run_id,
    });
    expect(finished!.seq).toBeGreaterThan(started!.seq);
    expect(JSON.stringify(all)).not.toContain('audited"}');
    expect((await verifyAuditPath(join(node.dataDir, 'audit')))[0]?.problem).toBeUndefined();

    // The server recorded who posted it.
    const posted = entriesOf(join(serverAudit, 'server.jsonl')).find(
      (e) => e.event === 'task.created' && e.created_id === run.taskId,
    );
    expect(posted).toMatchObject({
      actor: { kind: 'user', id: 1 },
      image: IMAGE,
      organization_ids: [fed.orgs[0]!.id],
    });
  });

  it('starts no container while the audit log cannot be written, and records the loss once it can', async () => {
    const file = join(node.dataDir, 'audit', 'node.jsonl');
    const kept = readFileSync(file, 'utf8');
    rmSync(file);
    symlinkSync('/dev/full', file);
    const refused = await runTask(encodeBase64(Buffer.from('json.{"method": "unaudited"}')));
    expect(refused.status).toBe('start failed');
    expect(refused.log).toContain('this node cannot write its audit log, so it runs nothing');
    expect(refused.log).not.toContain('copied');

    rmSync(file);
    writeFileSync(file, kept);
    const after = await runTask(encodeBase64(Buffer.from('json.{"method": "again"}')));
    expect(after.status).toBe('completed');
    const all = entriesOf(file);
    const resumed = all.find((e) => e.event === 'audit.resumed');
    // The refused run's run.started and run.finished could not be written.
    expect(resumed).toMatchObject({ lost_entries: 2 });
    expect(all.some((e) => e.task_id === refused.taskId)).toBe(false);
    expect(all.filter((e) => e.task_id === after.taskId).map((e) => e.event)).toEqual([
      'run.started',
      'run.finished',
    ]);
    expect((await verifyAuditPath(join(node.dataDir, 'audit')))[0]?.problem).toBeUndefined();
  });

  it('refuses to start a node whose audit log cannot be written', async () => {
    const dir = mkdtempSync(join(tmpdir(), `federa-${tag}-blocked-`));
    const data = join(dir, 'data');
    mkdirSync(data);
    writeFileSync(join(data, 'audit'), 'a file where the audit folder should be');
    const org = fed.orgs[1]!;
    const configFile = join(dir, `${tag}-1.yaml`);
    writeFileSync(
      configFile,
      `application:
  api_key: ${org.apiKey}
  server_url: http://127.0.0.1
  port: ${server.port}
  api_path: /api
  databases:
    - {label: default, uri: ${org.csv}, type: csv}
  encryption: {enabled: false}
  directories: {data: ${data}, log: ${join(dir, 'log')}}
  proxy_port: 0
`,
    );
    await expect(startE2eNode(server, org, `${tag}-1`, false, '', undefined, configFile)).rejects.toThrow(
      /the audit log cannot be used: .*(EEXIST|ENOTDIR)/,
    );
    rmSync(dir, { recursive: true, force: true });
  });
});
