/**
 * `vnode create-private-key` against a real server (on its embedded database, port 0) and the real Docker engine
 * (the command checks that the node is not running): the warning that a new key makes earlier encrypted work
 * unreadable appears when the key replaces one, not on an organization's first key.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { UserClient } from '@federa/client';
import { startServer, type ServerHandle } from '@federa/server';

import { requireDocker, runCli, tempXdg, uniqueName, useXdg } from '@federa/testing';
import { buildNodeProgram } from './program.js';

const dirs = tempXdg();
useXdg(dirs);
const name = uniqueName('fh-key');
const vnode = (...args: string[]) => runCli(buildNodeProgram, args);
let server: ServerHandle;
let admin: UserClient;

beforeAll(async () => {
  requireDocker();
  const password = `Root-${randomBytes(6).toString('hex')}1!`;
  const config = join(dirs.root, 'server.yaml');
  writeFileSync(
    config,
    [
      'environments:',
      '  prod:',
      `    uri: sqlite:///${join(dirs.root, 'server.sqlite')}`,
      `    jwt_secret_key: ${randomBytes(32).toString('hex')}`,
      '    bcrypt_rounds: 4',
      `    root_user: {email: root@example.org, password: "${password}"}`,
      `    directories: {data: ${join(dirs.root, 'server')}, log: ${dirs.root}}`,
      '    logging: {level: warn, use_console: false, file: server.log}',
      '',
    ].join('\n'),
  );
  server = await startServer({ configFile: config, environment: 'prod', port: 0 });
  admin = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });
  await admin.authenticate('root', password);
}, 60_000);

afterAll(async () => {
  await server?.close();
  dirs.cleanup();
});

it('warns about unreadable earlier results only when the new key replaces the organization’s key', async () => {
  const org = await admin.organization.create({ name: 'Key Clinic' });
  const collab = await admin.collaboration.create({
    name: `Key study ${name}`,
    organizationIds: [org.id],
    encrypted: true,
  });
  const created = await admin.node.create({ collaborationId: collab.id, organizationId: org.id });
  const csv = join(dirs.root, 'ages.csv');
  writeFileSync(csv, 'age\n30\n');
  const made = await vnode(
    'new',
    '-n',
    name,
    '--api-key',
    created.api_key ?? '',
    '--server-url',
    'http://127.0.0.1',
    '--port',
    String(server.port),
    '--database',
    `default=${csv}`,
    '--encryption',
    '--yes',
  );
  expect(made.code, made.stderr).toBe(0);

  const first = await vnode('create-private-key', '-n', name);
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toContain(`Uploaded the public key of organization Key Clinic (id ${org.id})`);
  expect(`${first.stdout}${first.stderr}`).not.toMatch(/warning/i);
  const firstKey = (await admin.organization.get(org.id)).public_key;
  expect(firstKey).toBeTruthy();

  const again = await vnode('create-private-key', '-n', name, '--overwrite');
  expect(again.code, again.stderr).toBe(0);
  expect(`${again.stdout}${again.stderr}`).toContain(
    'warning: this replaces the public key the organization had: results and tasks encrypted for the previous key can no longer be decrypted',
  );
  expect((await admin.organization.get(org.id)).public_key).not.toBe(firstKey);
}, 120_000);
