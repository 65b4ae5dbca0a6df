/**
 * A federation shaped like the main job's (scripts/federation.mjs), for running the documentation's examples:
 * the server started by `startServer` on its embedded SQLite database, the root organization (1), "Hospital A"
 * (2), "Hospital B" (3) and "Registry C" (4) in the encrypted collaboration "Age study" (1), a user `researcher`
 * of Hospital A with the Researcher role, and a node per organization running the algorithm images in Docker.
 * Docker objects are named after a per-run tag and removed by `close()`.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { UserClient } from '@federa/client';
import { createPrivateKeyFile } from '@federa/common';
import { loadNodeConfig, startNode, type RunningNode } from '@federa/node';
import { startServer } from '@federa/server';
import { removeNodeObjects } from '@federa/testing';
import pino from 'pino';

export interface DocsOrganization {
  readonly id: number;
  readonly name: string;
  /** The organization's private key file (its node's). */
  readonly key: string;
  /** The `age` column of its node's CSV file. */
  readonly ages: readonly number[];
}

export interface DocsFederation {
  readonly port: number;
  readonly dir: string;
  readonly rootPassword: string;
  readonly researcher: { readonly username: string; readonly password: string };
  readonly collaborationId: number;
  /** Hospital A, Hospital B, Registry C. */
  readonly orgs: readonly DocsOrganization[];
  readonly admin: UserClient;
  /**
   * Starts a node with this API key (one an example registered), with its own key file and CSV; resolves when
   * the server sees it online.
   */
  startNode(apiKey: string, ages: readonly number[]): Promise<DocsOrganization>;
  close(): Promise<void>;
}

type AgeRows = readonly number[];

const AGES: readonly AgeRows[] = [
  [31, 45, 52, 60, 38, 27],
  [29, 70, 41, 55],
  [63, 48, 36, 22, 51],
];

export async function startDocsFederation(tag: string): Promise<DocsFederation> {
  const dir = mkdtempSync(join(tmpdir(), `federa-${tag}-`));
  const rootPassword = `Root-${randomBytes(9).toString('base64url')}1!`;
  const config = join(dir, 'server.yaml');
  writeFileSync(
    config,
    [
      'environments:',
      '  prod:',
      '    description: the documentation examples',
      '    ip: 127.0.0.1',
      '    api_path: /api',
      `    uri: sqlite:///${join(dir, 'server', 'federa.sqlite')}`,
      `    jwt_secret_key: ${randomBytes(32).toString('hex')}`,
      '    bcrypt_rounds: 4',
      '    root_user:',
      '      email: root@docs.example',
      `      password: "${rootPassword}"`,
      `    directories: {data: ${join(dir, 'server')}, log: ${join(dir, 'logs')}}`,
      '    logging: {level: warn, use_console: false, file: server.log}',
      '',
    ].join('\n'),
  );
  const server = await startServer({ configFile: config, environment: 'prod', port: 0 });
  const nodes: { name: string; running: RunningNode }[] = [];
  const admin = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });

  const close = async (): Promise<void> => {
    for (const n of nodes) await n.running.stop().catch(() => undefined);
    await server.close().catch(() => undefined);
    for (const n of nodes) removeNodeObjects(n.name);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await admin.authenticate('root', rootPassword);
    const orgIds: number[] = [];
    for (const name of ['Hospital A', 'Hospital B', 'Registry C'])
      orgIds.push((await admin.organization.create({ name, country: 'NL' })).id);
    const collaboration = await admin.collaboration.create({
      name: 'Age study',
      organizationIds: orgIds,
      encrypted: true,
    });
    const role = (await admin.role.list({ name: 'Researcher' }))[0];
    const researcher = { username: 'researcher', password: `Res-${randomBytes(9).toString('base64url')}1!` };
    await admin.user.create({
      ...researcher,
      firstname: 'Rosa',
      lastname: 'Researcher',
      email: 'researcher@hospital-a.example',
      organizationId: orgIds[0],
      roles: role ? [role.id] : [],
    });

    let count = 0;
    const launch = async (apiKey: string, ages: AgeRows): Promise<{ key: string; name: string }> => {
      const name = `${tag}-${++count}`;
      const nodeDir = join(dir, name);
      mkdirSync(nodeDir, { recursive: true });
      const csv = join(nodeDir, 'ages.csv');
      writeFileSync(csv, `id,age\n${ages.map((a, i) => `${i + 1},${a}`).join('\n')}\n`);
      const key = join(nodeDir, 'privkey.pem');
      await createPrivateKeyFile(key, { modulusBits: 2048 });
      const file = join(nodeDir, `${name}.yaml`);
      writeFileSync(
        file,
        [
          'application:',
          `  api_key: ${apiKey}`,
          '  server_url: http://127.0.0.1',
          `  port: ${server.port}`,
          '  api_path: /api',
          '  databases:',
          `    - {label: default, uri: ${csv}, type: csv}`,
          `  encryption: {enabled: true, private_key: ${key}}`,
          `  directories: {data: ${join(nodeDir, 'data')}, log: ${join(nodeDir, 'log')}}`,
          '  proxy_port: 0',
          '',
        ].join('\n'),
      );
      const log = pino({ level: process.env.FEDERA_TEST_LOG ?? 'silent' });
      nodes.push({ name, running: await startNode({ config: loadNodeConfig({ file, env: {} }), log }) });
      return { key, name };
    };
    const online = async (organizationId: number): Promise<void> => {
      for (let waited = 0; ; waited += 250) {
        const list = await admin.node.list({ organizationId });
        if (list.length > 0 && list.every((n) => n.status === 'online')) return;
        if (waited > 60_000)
          throw new Error(`the node of organization ${organizationId} is not online after 60 s`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };

    const orgs: DocsOrganization[] = [];
    for (const [i, id] of orgIds.entries()) {
      const created = await admin.node.create({ collaborationId: collaboration.id, organizationId: id });
      const ages = AGES[i] ?? [];
      const { key } = await launch(created.api_key ?? '', ages);
      orgs.push({ id, name: ['Hospital A', 'Hospital B', 'Registry C'][i] ?? '', key, ages });
    }
    for (const o of orgs) await online(o.id);

    return {
      port: server.port,
      dir,
      rootPassword,
      researcher,
      collaborationId: collaboration.id,
      orgs,
      admin,
      startNode: async (apiKey, ages) => {
        const organizationId = await organizationOfKey(server.port, apiKey);
        const { key } = await launch(apiKey, ages);
        await online(organizationId);
        const org = await admin.organization.get(organizationId);
        return { id: organizationId, name: org.name ?? '', key, ages };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The organization of the node that this API key logs in as. */
async function organizationOfKey(port: number, apiKey: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/api/token/node`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  if (!res.ok) throw new Error(`the API key an example printed does not log in as a node (${res.status})`);
  const { access_token: token, node_url: nodeUrl } = (await res.json()) as {
    access_token: string;
    node_url: string;
  };
  const node = await fetch(`http://127.0.0.1:${port}/api${nodeUrl.replace(/^\/api/, '')}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await node.json()) as { organization: { id: number } };
  return body.organization.id;
}
