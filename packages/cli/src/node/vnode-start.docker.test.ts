/**
 * The whole path of a node administrator, all real: `vserver start` runs the server image, `vnode start` runs the
 * node image (`vnode-local start --dockerized`), the node comes online at the server, a task runs (the TypeScript
 * average algorithm, encrypted) on the node's internal network, then stop, clean and remove, after which nothing is left. Needs Docker and the images of scripts/build-images.sh, scripts/build-algorithms.sh and
 * scripts/build-infra-images.sh.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RsaCryptor, openSealedLog } from '@federa/common';
import {
  docker,
  dockerQuiet,
  freePort,
  requireDocker,
  requireImage,
  runCli,
  tempXdg,
  uniqueName,
  useXdg,
  infraImage,
} from '@federa/testing';
import { buildServerProgram } from '../server/program.js';
import { buildNodeProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const serverName = uniqueName('e2e-srv');
const nodeName = uniqueName('e2e-node');
const ALGORITHM = 'federa/average-ts:local';
const ROOT_PASSWORD = 'Root-Password-1!';
const vserver = (...args: string[]) => runCli(buildServerProgram, args);
const vnode = (...args: string[]) => runCli(buildNodeProgram, args);
let api = '';
let token = '';

const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
};

beforeAll(() => {
  requireDocker();
  for (const image of [infraImage('server'), infraImage('node'), ALGORITHM]) requireImage(image);
});

afterAll(() => {
  dockerQuiet('rm', '-f', `federa-${nodeName}-user`, `federa-${serverName}-user-server`);
  for (const v of docker('volume', 'ls', '-q', '--filter', `name=federa-${nodeName}`)
    .split('\n')
    .filter(Boolean))
    dockerQuiet('volume', 'rm', '-f', v);
  for (const c of docker('ps', '-aq', '--filter', `name=federa-${nodeName}`).split('\n').filter(Boolean))
    dockerQuiet('rm', '-f', c);
  dockerQuiet('network', 'rm', `federa-${nodeName}-net`, `federa-${serverName}-user-network`);
  dirs.cleanup();
});

describe('vnode start with the node image, at a server started by vserver', () => {
  it('comes online, runs a task, stops and cleans up', async () => {
    const port = await freePort();
    expect(
      (
        await vserver(
          'new',
          '--user',
          '-n',
          serverName,
          '--port',
          String(port),
          '--root-email',
          'root@example.org',
          '--root-password',
          ROOT_PASSWORD,
          '--yes',
        )
      ).code,
    ).toBe(0);
    const started = await vserver(
      'start',
      '--image',
      infraImage('server'),
      '--user',
      '-n',
      serverName,
      '--wait',
      '120',
    );
    expect(started.code, started.stderr).toBe(0);
    api = `http://127.0.0.1:${port}/api`;
    token = (
      await call<{ access_token: string }>('POST', '/token/user', {
        username: 'root',
        password: ROOT_PASSWORD,
      })
    ).access_token;
    const org = await call<{ id: number }>('POST', '/organization', { name: `${nodeName}-org` });
    const collab = await call<{ id: number }>('POST', '/collaboration', {
      name: `${nodeName}-study`,
      organization_ids: [org.id],
      encrypted: true,
    });
    // A researcher of that organization posts the task (root's organization is not in the collaboration).
    const listed = await call<{ id: number }[] | { data: { id: number }[] }>('GET', '/rule');
    const rules = Array.isArray(listed) ? listed : listed.data;
    const role = await call<{ id: number }>('POST', '/role', {
      name: 'everything',
      description: 'all rules',
      rules: rules.map((r) => r.id),
      organization_id: org.id,
    });
    await call('POST', '/user', {
      username: `${nodeName}-researcher`,
      firstname: 'Re',
      lastname: 'Searcher',
      password: ROOT_PASSWORD,
      email: `${nodeName}@example.org`,
      organization_id: org.id,
      roles: [role.id],
    });
    const node = await call<{ api_key: string }>('POST', '/node', {
      collaboration_id: collab.id,
      organization_id: org.id,
      name: nodeName,
    });

    const csv = join(dirs.root, 'ages.csv');
    writeFileSync(csv, 'age\n20\n30\n40\n');
    const made = await vnode(
      'new',
      '-n',
      nodeName,
      '--api-key',
      node.api_key,
      '--server-url',
      'http://host.docker.internal',
      '--port',
      String(port),
      '--database',
      `default=${csv}`,
      '--encryption',
      '--yes',
    );
    expect(made.code, made.stderr).toBe(0);

    const run = await vnode('start', '--image', infraImage('node'), '-n', nodeName, '--wait', '120');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/✓ waiting for the node to come online/);
    expect((await vnode('list')).stdout).toMatch(new RegExp(`${nodeName}\\s+user\\s+running\\s+online`));
    const version = await vnode('version', '-n', nodeName);
    expect(JSON.parse(version.stdout)).toMatchObject({ node: expect.stringMatching(/^\d+\.\d+\.\d+/) });

    token = (
      await call<{ access_token: string }>('POST', '/token/user', {
        username: `${nodeName}-researcher`,
        password: ROOT_PASSWORD,
      })
    ).access_token;
    // In Docker: the node joined its internal network as `proxyserver`; `vnode start` made the organization's key
    // on the host (not in the data volume, which algorithms see) and the node uploaded its public key.
    expect(docker('network', 'inspect', '--format', '{{.Internal}}', `federa-${nodeName}-net`)).toBe('true');
    const aliases = docker(
      'inspect',
      '--format',
      `{{json (index .NetworkSettings.Networks "federa-${nodeName}-net").Aliases}}`,
      `federa-${nodeName}-user`,
    );
    expect(JSON.parse(aliases)).toContain('proxyserver');
    const keyFile = join(dirs.env.XDG_DATA_HOME, 'federa', 'node', nodeName, 'private_key.pem');
    const researcher = await RsaCryptor.fromFile(keyFile);
    const orgKey = (await call<{ public_key: string }>('GET', `/organization/${org.id}`)).public_key;
    expect(orgKey).toBe(researcher.publicKeyBase64);

    const input = researcher.encryptBytesToString(
      Buffer.from(
        `json.${JSON.stringify({ method: 'central_average', args: ['age'], kwargs: {}, master: true, output_format: 'json' })}`,
      ),
      orgKey,
    );
    const task = await call<{ id: number }>('POST', '/task', {
      name: 'cli e2e',
      image: ALGORITHM,
      collaboration_id: collab.id,
      database: 'default',
      organizations: [{ id: org.id, input }],
    });
    const deadline = Date.now() + 120_000;
    while (!(await call<{ complete: boolean }>('GET', `/task/${task.id}`)).complete) {
      if (Date.now() > deadline) throw new Error('the task did not complete within 120 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    const results = await call<{ status: string; result: string; log: string | null }[]>(
      'GET',
      `/task/${task.id}/result`,
    );
    expect(results[0]?.status, results[0]?.log ?? '').toBe('completed');
    const out = JSON.parse(
      researcher
        .decryptStringToBytes(results[0]?.result ?? '')
        .subarray(5)
        .toString(),
    ) as { average: number };
    expect(out.average).toBeCloseTo(30, 10);

    // A misspelt column is a failed run that says why, not a "completed" count of 0.
    const misspelt = await call<{ id: number }>('POST', '/task', {
      name: 'misspelt column',
      image: ALGORITHM,
      collaboration_id: collab.id,
      database: 'default',
      organizations: [
        {
          id: org.id,
          input: researcher.encryptBytesToString(
            Buffer.from(`json.${JSON.stringify({ method: 'partial_average', args: ['agee'], kwargs: {} })}`),
            orgKey,
          ),
        },
      ],
    });
    const badDeadline = Date.now() + 120_000;
    while (!(await call<{ complete: boolean }>('GET', `/task/${misspelt.id}`)).complete) {
      if (Date.now() > badDeadline) throw new Error('the misspelt task did not complete within 120 s');
      await new Promise((r) => setTimeout(r, 500));
    }
    const bad = await call<{ status: string; log: string | null }[]>('GET', `/task/${misspelt.id}/result`);
    expect(bad[0]?.status).toBe('crashed'); // the algorithm raised: a failure, not 'completed'
    // Sealed for the organization in this encrypted collaboration (docs/run-logs.md).
    expect(openSealedLog(researcher, bad[0]?.log ?? '')).toMatch(
      /no column 'agee' in the data; its columns are: age/,
    );

    expect((await vnode('stop', '-n', nodeName)).code).toBe(0);
    // The node in Docker kept its audit log in the host's data folder (mounted at /mnt/audit, out of the data volume
    // algorithms see): both runs, the image by digest, and the hash of the input as received (docs/audit.md).
    const audited = await vnode('audit', 'verify', '-n', nodeName);
    expect(audited.code, audited.stderr).toBe(0);
    expect(audited.stdout).toMatch(/^OK: chain 'node': \d+ entries intact/);
    const auditLines = readFileSync(
      join(dirs.env.XDG_DATA_HOME, 'federa', 'node', nodeName, 'audit', 'node.jsonl'),
      'utf8',
    )
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const imageId = docker('image', 'inspect', '-f', '{{.Id}}', ALGORITHM);
    expect(auditLines.find((e) => e.event === 'run.started' && e.task_id === task.id)).toMatchObject({
      image_id: imageId,
      initiating_organization_id: org.id,
      input_sha256: createHash('sha256').update(input).digest('hex'),
      database: 'default',
    });
    expect(auditLines.find((e) => e.event === 'run.finished' && e.task_id === misspelt.id)).toMatchObject({
      status: 'crashed',
    });
    expect(docker('ps', '-q', '--filter', `name=^federa-${nodeName}-user$`)).toBe('');
    // The run left its temporary volume behind (as in vantage6): `vnode clean` removes it.
    const runVolumes = (): string[] =>
      docker('volume', 'ls', '-q', '--filter', 'name=tmpvol')
        .split('\n')
        .filter((v) => v.startsWith(`federa-${nodeName}-`));
    expect(runVolumes()).toHaveLength(2);
    const cleaned = await vnode('clean', '-n', nodeName, '--yes');
    expect(cleaned.code).toBe(0);
    expect(runVolumes()).toEqual([]);

    const files = (await vnode('files', '-n', nodeName)).stdout;
    const configFile = /configuration file:\s+(\S+)/.exec(files)?.[1] ?? '';
    const dataFolder = /data folder:\s+(\S+)/.exec(files)?.[1] ?? '';
    expect(existsSync(configFile)).toBe(true);
    const removed = await vnode('remove', '-n', nodeName, '--yes');
    expect(removed.code, removed.stderr).toBe(0);
    expect(docker('volume', 'ls', '-q', '--filter', `name=federa-${nodeName}`)).toBe('');
    expect(docker('network', 'ls', '-q', '--filter', `name=federa-${nodeName}`)).toBe('');
    expect(docker('ps', '-aq', '--filter', `name=federa-${nodeName}`)).toBe('');
    expect(existsSync(configFile)).toBe(false);
    expect(existsSync(dataFolder)).toBe(false);
    expect((await vnode('list')).stdout).not.toContain(nodeName);
    expect((await vserver('stop', '--user', '-n', serverName)).code).toBe(0);
  }, 420_000);
});
