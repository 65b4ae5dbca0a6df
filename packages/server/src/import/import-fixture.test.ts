/**
 * The fixture importer on the dialect under test (FEDERA_TEST_DB=sqlite|postgres), checked through the real API:
 * imported users log in, imported nodes log in with the fixture's API key, and a second import adds nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyAuditPath } from '@federa/common';

import { runCli, type CliIo } from '../bin/vserver-local-cli.js';
import { createTestDatabase, startTestApp, type TestApp, type TestDatabase } from '@federa/testing';
import { FixtureError, loadFixtureFile, parseFixture } from './fixture.js';
import { importFixture } from './import-fixture.js';

const DOCS = join(import.meta.dirname, '..', '..', '..', '..', 'docs');
const KEY_A = '8d0e2f4c-1b3a-4c5d-9e6f-7a8b9c0d1e2f';
const KEY_B = '1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9';

const fixtureDoc = {
  organizations: [
    {
      name: 'Hospital A',
      domain: 'a.example.org',
      address1: 'Street 1',
      address2: '',
      zipcode: '1234',
      country: 'NL',
      public_key: '',
      users: [
        { username: 'alice', firstname: 'Alice', lastname: 'A', password: 'pw', roles: ['super'] },
        {
          username: 'anna',
          firstname: 'Anna',
          lastname: 'A',
          password: 'pw2',
          email: 'anna@example.org',
          roles: ['Researcher'],
        },
      ],
    },
    {
      name: 'Hospital B',
      domain: null,
      address1: null,
      address2: null,
      zipcode: null,
      country: null,
      public_key: null,
      users: [{ username: 'bob', firstname: 'Bob', lastname: 'B', password: 'x' }],
    },
  ],
  collaborations: [
    {
      name: 'Study 1',
      participants: [
        { name: 'Hospital A', api_key: KEY_A },
        { name: 'Hospital B', api_key: KEY_B },
      ],
      tasks: ['federa/average-python:local'],
    },
  ],
};

let t: TestApp;

const counts = async (): Promise<Record<string, number>> => {
  const db = t.ctx.dbh.db;
  const n = async (table: 'organization' | 'user' | 'collaboration' | 'node' | 'task' | 'result' | 'role') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    organization: await n('organization'),
    user: await n('user'),
    collaboration: await n('collaboration'),
    node: await n('node'),
    task: await n('task'),
    result: await n('result'),
    role: await n('role'),
  };
};

describe('importFixture', () => {
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates organizations, users with the roles written, nodes with the given keys and example tasks', async () => {
    const report = await importFixture(t.ctx.dbh, { bcrypt_rounds: 4 }, parseFixture(fixtureDoc));
    expect(report.created).toEqual({
      organizations: ['Hospital A', 'Hospital B'],
      users: ['alice', 'anna', 'bob'],
      roles: ['super (Hospital A)'],
      collaborations: ['Study 1'],
      nodes: ['hospital-a-study-1-node', 'hospital-b-study-1-node'],
      tasks: ['Study 1: federa/average-python:local'],
    });

    // Fixture passwords bypass the policy; the user has every rule through `super`.
    const alice = await t.login('alice', 'pw');
    const me = await t.api('GET', '/user', { token: alice, query: { username: 'alice' } });
    const user = (Array.isArray(me.body) ? me.body : me.body.data)[0];
    expect(user.email).toBe('alice@a.example.org');
    const roles = await t.api('GET', '/role', { token: alice, query: { user_id: user.id } });
    const roleList = Array.isArray(roles.body) ? roles.body : roles.body.data;
    expect(roleList.map((r: { name: string }) => r.name)).toEqual(['super']);
    const rules = await t.api('GET', '/rule', {
      token: alice,
      query: { role_id: roleList[0].id, per_page: 500 },
    });
    const all = await t.api('GET', '/rule', { token: alice, query: { per_page: 500 } });
    expect((rules.body.data ?? rules.body).length).toBe((all.body.data ?? all.body).length);
    // Only the roles written: anna is a Researcher, bob (no roles) has none.
    const roleNames = async (username: string): Promise<string[]> => {
      const u = (await t.api('GET', '/user', { token: t.rootToken, query: { username } })).body;
      const id = (Array.isArray(u) ? u : u.data)[0].id;
      const r = (await t.api('GET', '/role', { token: t.rootToken, query: { user_id: id } })).body;
      return (Array.isArray(r) ? r : r.data).map((x: { name: string }) => x.name);
    };
    expect(await roleNames('anna')).toEqual(['Researcher']);
    expect(await roleNames('bob')).toEqual([]);
    // Each new node's key is in the report once (the fixture's keys here).
    expect(report.nodeKeys).toEqual([
      {
        node: 'hospital-a-study-1-node',
        organization: 'Hospital A',
        collaboration: 'Study 1',
        api_key: KEY_A,
      },
      {
        node: 'hospital-b-study-1-node',
        organization: 'Hospital B',
        collaboration: 'Study 1',
        api_key: KEY_B,
      },
    ]);

    // The node logs in with the fixture's key.
    const nodeLogin = await t.api('POST', '/token/node', { body: { api_key: KEY_B } });
    expect(nodeLogin.status).toBe(200);
    const node = await t.api('GET', nodeLogin.body.node_url.replace(/^\/api/, ''), {
      token: nodeLogin.body.access_token,
    });
    expect(node.body).toMatchObject({ name: 'hospital-b-study-1-node' });
    expect(node.body.collaboration.id).toBeGreaterThan(0);

    const collab = await t.api('GET', `/collaboration/${node.body.collaboration.id}`, { token: t.rootToken });
    expect(collab.body.encrypted).toBe(true);
    const tasks = await t.api('GET', '/task', { token: t.rootToken, query: { name: 'Example task' } });
    const task = (Array.isArray(tasks.body) ? tasks.body : tasks.body.data)[0];
    expect(task).toMatchObject({ image: 'federa/average-python:local' });
    const results = await t.ctx.dbh.db
      .selectFrom('result')
      .select(['organization_id', 'status'])
      .where('task_id', '=', task.id)
      .execute();
    expect(results.map((r) => r.status)).toEqual(['pending', 'pending']);
  });

  it('adds nothing the second time', async () => {
    await importFixture(t.ctx.dbh, { bcrypt_rounds: 4 }, parseFixture(fixtureDoc));
    const before = await counts();
    const again = await importFixture(t.ctx.dbh, { bcrypt_rounds: 4 }, parseFixture(fixtureDoc));
    expect(await counts()).toEqual(before);
    expect(Object.values(again.created).flat()).toEqual([]);
    expect(again.skipped).toMatchObject({
      organizations: ['Hospital A', 'Hospital B'],
      users: ['alice', 'anna', 'bob'],
      collaborations: ['Study 1'],
      nodes: ['hospital-a-study-1-node', 'hospital-b-study-1-node'],
      tasks: ['Study 1: federa/average-python:local'],
    });
  });

  it('writes nothing when an entry is wrong halfway (one transaction)', async () => {
    const before = await counts();
    const doc = structuredClone(fixtureDoc);
    doc.collaborations[0]!.participants[1]!.name = 'Hospital Z';
    await expect(importFixture(t.ctx.dbh, { bcrypt_rounds: 4 }, parseFixture(doc))).rejects.toThrow(
      "collaborations[0].participants[1].name: no organization named 'Hospital Z'",
    );
    expect(await counts()).toEqual(before);
  });

  it('generates the API key of a participant without one, and refuses a role that does not exist', async () => {
    const made = await importFixture(
      t.ctx.dbh,
      { bcrypt_rounds: 4 },
      parseFixture({
        organizations: [{ ...fixtureDoc.organizations[1], name: 'Hospital C', users: [] }],
        collaborations: [{ name: 'Study 3', participants: [{ name: 'Hospital C' }] }],
      }),
    );
    const key = made.nodeKeys[0]?.api_key ?? '';
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect((await t.api('POST', '/token/node', { body: { api_key: key } })).status).toBe(200);

    const doc = structuredClone(fixtureDoc);
    (doc.organizations[0]!.users[0] as { roles: string[] }).roles = ['Wizard'];
    const before = await counts();
    await expect(importFixture(t.ctx.dbh, { bcrypt_rounds: 4 }, parseFixture(doc))).rejects.toThrow(
      /organizations\[0\]\.users\[0\]\.roles\[0\]: no role 'Wizard' for this organization/,
    );
    expect(await counts()).toEqual(before);
  });

  it('imports the examples of docs/import-format.md and docs/first-hour-server-admin.md as written', async () => {
    for (const doc of ['import-format.md', 'first-hour-server-admin.md']) {
      const text = readFileSync(join(DOCS, doc), 'utf8');
      const block = /^```yaml\n([\s\S]*?)^```/m.exec(text)?.[1] ?? '';
      const folder = mkdtempSync(join(tmpdir(), 'federa-doc-'));
      const file = join(folder, 'study.yaml');
      writeFileSync(file, block);
      const loaded = loadFixtureFile(file);
      rmSync(folder, { recursive: true, force: true });
      const report = await importFixture(t.ctx.dbh, { bcrypt_rounds: 4 }, loaded.fixture);
      expect(report.created.organizations, doc).toEqual(['Hospital A', 'Hospital B']);
      expect(
        report.nodeKeys.map((k) => k.node),
        doc,
      ).toEqual(['hospital-a-study-1-node', 'hospital-b-study-1-node']);
      // The next document's example uses the same names: start from a fresh database.
      await t.close();
      t = await startTestApp();
    }
  });

  it('refuses an API key another node has', async () => {
    await importFixture(t.ctx.dbh, { bcrypt_rounds: 4 }, parseFixture(fixtureDoc));
    const doc = {
      organizations: [],
      collaborations: [{ name: 'Study 2', participants: [{ name: 'Hospital A', api_key: KEY_A }] }],
    };
    const before = await counts();
    await expect(importFixture(t.ctx.dbh, { bcrypt_rounds: 4 }, parseFixture(doc))).rejects.toThrow(
      /collaborations\[0\]\.participants\[0\]\.api_key: this API key is already the key of node 'hospital-a-study-1-node'/,
    );
    expect(await counts()).toEqual(before);
  });
});

describe('parseFixture', () => {
  const check = (mutate: (d: typeof fixtureDoc) => void): FixtureError => {
    const doc = structuredClone(fixtureDoc);
    mutate(doc);
    try {
      parseFixture(doc, 'fx.yaml');
    } catch (error) {
      if (error instanceof FixtureError) return error;
      throw error;
    }
    throw new Error('accepted');
  };

  it('names the entry of a bad value', () => {
    const e = check((d) => (d.collaborations[0]!.participants[1]!.api_key = 'not-a-uuid'));
    expect(e.entry).toBe('collaborations[0].participants[1].api_key');
    expect(e.message).toMatch(/^fx\.yaml: collaborations\[0\]\.participants\[1\]\.api_key: expected a UUID/);
    expect(
      check((d) => delete (d.organizations[1] as Partial<(typeof d.organizations)[1]>).zipcode).entry,
    ).toBe('organizations[1].zipcode');
    expect(check((d) => (d.organizations[0]!.users[1]!.password = '')).entry).toBe(
      'organizations[0].users[1].password',
    );
    expect(check((d) => (d.organizations[1]!.users[0]!.username = 'alice')).message).toMatch(
      /organizations\[1\]\.users\[0\]\.username: the username "alice" is also given at organizations\[0\]\.users\[0\]\.username/,
    );
    expect(check((d) => ((d.collaborations[0] as { encrypted?: unknown }).encrypted = 'yes')).entry).toBe(
      'collaborations[0].encrypted',
    );
  });

  it('refuses unknown keys at every level, with a hint for the usual mistakes', () => {
    const e = check((d) => ((d.collaborations[0] as Record<string, unknown>).organizations = ['Hospital A']));
    expect(e.entry).toBe('collaborations[0].organizations');
    expect(e.message).toMatch(
      /unknown key 'organizations' \(the organizations of a collaboration are its participants/,
    );
    expect(check((d) => ((d.organizations[0]!.users[0] as Record<string, unknown>).role = 'x')).entry).toBe(
      'organizations[0].users[0].role',
    );
    expect(
      check((d) => ((d.collaborations[0]!.participants[0] as Record<string, unknown>).key = 'x')).entry,
    ).toBe('collaborations[0].participants[0].key');
    expect(check((d) => ((d.organizations[1] as Record<string, unknown>).adress = 'x')).entry).toBe(
      'organizations[1].adress',
    );
  });

  it('defaults encrypted to true and accepts an empty file', () => {
    expect(parseFixture(fixtureDoc).collaborations[0]?.encrypted).toBe(true);
    expect(parseFixture(null)).toEqual({ organizations: [], collaborations: [] });
  });
});

describe('vserver-local import', () => {
  const dir = mkdtempSync(join(tmpdir(), 'federa-import-'));
  let database: TestDatabase;
  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports a fixture file into the configured database, twice without duplicates', async () => {
    database = await createTestDatabase();
    // In-memory SQLite would vanish between runs: use a file then.
    const uri = database.uri === 'sqlite://' ? `sqlite:///${join(dir, 'db.sqlite')}` : database.uri;
    const config = join(dir, 'server.yaml');
    writeFileSync(
      config,
      `environments:\n  prod:\n    uri: "${uri}"\n    jwt_secret_key: a-secret-that-is-long-enough\n    bcrypt_rounds: 4\n    root_user: {email: root@example.org, password: Root-Password-1!}\n    directories: {data: ${join(dir, 'data')}}\n`,
    );
    const fixture = join(dir, 'import.yaml');
    writeFileSync(fixture, JSON.stringify(fixtureDoc));
    const run = async (...argv: string[]) => {
      let out = '';
      let err = '';
      const io: CliIo = {
        out: (s) => (out += s),
        err: (s) => (err += s),
        start: () => Promise.reject(new Error('not started in this test')),
      };
      return { reason: await runCli(argv, io), out, err };
    };
    const first = await run('import', '-c', config, '-e', 'prod', fixture);
    expect(first.err).toBe('');
    expect(first.reason).toBe('ok');
    expect(first.out).toMatch(/^organizations: 2 created \(Hospital A, Hospital B\)$/m);
    expect(first.out).toMatch(/^nodes: 2 created/m);
    const second = await run('import', '-c', config, fixture);
    expect(second.reason).toBe('ok');
    expect(second.out).toMatch(/^organizations: 0 created, 2 already there \(Hospital A, Hospital B\)$/m);
    expect(second.out).toMatch(/^tasks: 0 created, 1 already there/m);

    expect(first.out).toMatch(
      new RegExp(
        `API keys of the new nodes[^\n]*\n[^\n]*\n  hospital-a-study-1-node \\(Hospital A in Study 1\\): ${KEY_A}\n`,
      ),
    );
    expect(second.out).not.toMatch(/API keys/); // shown once, when the node is made
    // Both imports are in the audit log (docs/audit.md), what they created, never an API key.
    const auditFile = join(dir, 'data', 'audit', 'import.jsonl');
    const entries = readFileSync(auditFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.map((e) => e.event)).toEqual(['import.applied', 'import.applied']);
    expect(entries[0]).toMatchObject({
      fixture,
      created: { organizations: ['Hospital A', 'Hospital B'] },
      pid: process.pid,
    });
    expect(entries[1]).toMatchObject({ created: { organizations: [] } });
    expect(readFileSync(auditFile, 'utf8')).not.toContain(KEY_A);
    expect((await verifyAuditPath(join(dir, 'data', 'audit')))[0]?.problem).toBeUndefined();

    writeFileSync(
      fixture,
      'collaborations:\n  - name: S\n    participants: [{name: Hospital A, api_key: 42}]\n',
    );
    const bad = await run('import', '-c', config, fixture);
    expect(bad.reason).toBe('config');
    expect(bad.err).toContain(`${fixture}:3: collaborations[0].participants[0].api_key: expected a UUID`);

    // An unknown key: refused with the admin's file name (as vserver import passes it) and the key's line.
    writeFileSync(
      fixture,
      'collaborations:\n  - name: S\n    encrypted: false\n    organizations:\n      - Hospital A\n',
    );
    process.env.FEDERA_IMPORT_SOURCE = '/home/admin/study.yaml';
    const unknown = await run('import', '-c', config, fixture).finally(
      () => delete process.env.FEDERA_IMPORT_SOURCE,
    );
    expect(unknown.reason).toBe('config');
    expect(unknown.err).toContain(
      "/home/admin/study.yaml:4: collaborations[0].organizations: unknown key 'organizations'",
    );
    expect(unknown.err).not.toContain(fixture);
  });
});
