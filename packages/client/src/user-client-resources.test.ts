/**
 * The UserClient managing a federation's resources against a real Federa server (organizations, collaborations,
 * nodes, roles, users), and how it reports the server's refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { rootUserClient, startE2eServer, uniqueName as unique, type E2eServer } from '@federa/testing';
import { NotFoundError, PermissionError, ValidationError } from './errors.js';
import { UserClient } from './user-client.js';

let t: E2eServer;
let port: number;

beforeAll(async () => {
  t = await startE2eServer();
  port = t.port;
});
afterAll(async () => {
  await t?.close();
});

/** A client of the test server, logged in as root; `messages` collects its log. */
const rootClient = (options: { refreshMarginSeconds?: number } = {}) => rootUserClient(port, options);

describe('UserClient: managing resources', () => {
  it('creates 25 organizations and reads them back 10 per page', async () => {
    const { client } = await rootClient();
    const prefix = unique('paging');
    for (let i = 0; i < 25; i++) await client.organization.create({ name: `${prefix}-${i}`, country: 'NL' });
    const all = await client.organization.list({ name: `${prefix}-%` }, { perPage: 10 });
    expect(all).toHaveLength(25);
    expect(new Set(all.map((o) => o.name)).size).toBe(25);
    const third = await client.organization.listPage({ name: `${prefix}-%` }, { page: 3, perPage: 10 });
    expect(third).toMatchObject({ total: 25, page: 3, perPage: 10 });
    expect(third.items).toHaveLength(5);
    expect(await client.organization.list({ name: `${prefix}-%` }, { page: 2, perPage: 10 })).toHaveLength(
      10,
    );

    const first = all[0]!;
    const updated = await client.organization.update(first.id, { domain: 'example.org' });
    expect(updated.domain).toBe('example.org');
    expect((await client.organization.get(first.id)).domain).toBe('example.org');
  });

  it('creates a collaboration, a node, a role and a user', async () => {
    const { client } = await rootClient();
    const a = await client.organization.create({ name: unique('org-a') });
    const b = await client.organization.create({ name: unique('org-b') });
    const collab = await client.collaboration.create({
      name: unique('collab'),
      organizationIds: [a.id, b.id],
    });
    expect(collab.encrypted).toBe(false);
    expect((await client.collaboration.organizations(collab.id)).map((o) => o.id).sort()).toEqual(
      [a.id, b.id].sort(),
    );
    expect((await client.collaboration.list({ organizationId: a.id })).map((c) => c.id)).toEqual([collab.id]);

    const node = await client.node.create({ collaborationId: collab.id, organizationId: a.id });
    expect(node.api_key).toMatch(/[0-9a-f-]{36}/);
    expect((await client.node.list({ collaborationId: collab.id })).map((n) => n.id)).toEqual([node.id]);
    expect((await client.node.update(node.id, { name: 'renamed-node' })).name).toBe('renamed-node');
    // A node that never connected has no online periods.
    expect(await client.node.history(node.id, { page: 1, perPage: 5 })).toEqual({
      items: [],
      total: 0,
      page: 1,
      perPage: 5,
    });

    const rule = await client.rule.find('organization', 'VIEW', 'ORGANIZATION');
    expect(rule).toBeDefined();
    const role = await client.role.create({
      name: unique('viewer'),
      description: 'sees its organization',
      rules: [rule!.id],
      organizationId: a.id,
    });
    expect((await client.role.rules(role.id)).map((r) => r.id)).toEqual([rule!.id]);

    const username = unique('alice');
    const password = 'Alice-Password-1!';
    const user = await client.user.create({
      username,
      firstname: 'Alice',
      lastname: 'Example',
      email: `${username}@example.org`,
      password,
      organizationId: a.id,
      roles: [role.id],
    });
    expect(user.organization.id).toBe(a.id);
    expect((await client.user.list({ organizationId: a.id })).map((u) => u.username)).toEqual([username]);
    expect((await client.user.update(user.id, { firstname: 'Alicia' })).firstname).toBe('Alicia');

    const alice = new UserClient({ host: 'http://127.0.0.1', port });
    await alice.authenticate(username, password);
    expect((await alice.organization.list()).map((o) => o.id)).toEqual([a.id]);
    const refused = await alice.organization.create({ name: unique('nope') }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PermissionError);
    expect(refused).toMatchObject({ status: 401 });

    await client.user.delete(user.id);
    await expect(client.user.get(user.id)).rejects.toBeInstanceOf(NotFoundError);
    await client.role.delete(role.id);
    await client.node.delete(node.id);
    await client.collaboration.delete(collab.id);
  });

  it('reports refusals with their class, status and the server message', async () => {
    const { client } = await rootClient();
    const missing = await client.task.get(987654).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, path: '/api/task/987654' });

    const org = await client.organization.create({ name: unique('dup') });
    const name = unique('collab-dup');
    await client.collaboration.create({ name, organizationIds: [org.id] });
    const duplicate = await client.collaboration
      .create({ name, organizationIds: [org.id] })
      .catch((e: unknown) => e);
    expect(duplicate).toBeInstanceOf(ValidationError);
    expect((duplicate as ValidationError).serverMessage.length).toBeGreaterThan(0);
  });

  it('changes your own e-mail address only with your current password', async () => {
    const orgId = await t.fx.organization();
    const viewer = await t.fx.user(orgId, { roles: ['Viewer'] });
    const client = new UserClient({ host: 'http://127.0.0.1', port });
    await client.authenticate(viewer.username, viewer.password);
    const email = `${viewer.username}-new@example.org`;
    const refused = await client.user.update(viewer.id, { email }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused).toMatchObject({ status: 400, code: 'current_password_required' });
    const changed = await client.user.update(viewer.id, { email, currentPassword: viewer.password });
    expect(changed.email).toBe(email);
  });

  it('refuses a user without the needed rule with a PermissionError', async () => {
    const orgId = await t.fx.organization();
    const plain = await t.fx.user(orgId);
    const client = new UserClient({ host: 'http://127.0.0.1', port });
    await client.authenticate(plain.username, plain.password);
    const error = await client.collaboration
      .create({ name: unique('c'), organizationIds: [orgId] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect(error).toMatchObject({ status: 401 });
  });
});
