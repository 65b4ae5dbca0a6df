/**
 * Organization names are unique regardless of case (docs/api.md#organizations): create and rename refuse a
 * taken name with 400 `conflict` naming it, nothing is stored, requests at the same moment let one through, and a
 * database that already holds such names is started with a warning naming them, nothing renamed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  startTestApp,
  startTestServer,
  TEST_DIALECT,
  type TestApp,
} from '@federa/testing';
import { FixtureError, parseFixture } from '../import/fixture.js';
import { importFixture } from '../import/import-fixture.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const names = async (): Promise<string[]> =>
  (await t.ctx.dbh.db.selectFrom('organization').select('name').execute()).map((r) => r.name ?? '');

describe('organization names', () => {
  it('refuses creating an organization whose name another has, in any case, with 400 naming the name', async () => {
    const first = await t.api('POST', '/organization', {
      token: t.rootToken,
      body: { name: 'Hospital_North' },
    });
    expect(first.status).toBe(201);
    for (const name of ['Hospital_North', 'HOSPITAL_NORTH', 'hospital_north']) {
      const r = await t.api('POST', '/organization', { token: t.rootToken, body: { name } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('conflict');
      expect(r.body.msg).toContain(`'${name}'`);
      expect(r.body.msg).toContain('regardless of case');
    }
    expect((await names()).filter((n) => n.toLowerCase() === 'hospital_north')).toEqual(['Hospital_North']);
    // A LIKE wildcard is a character like any other: `Hospital-North` is another name.
    const other = await t.api('POST', '/organization', {
      token: t.rootToken,
      body: { name: 'Hospital-North' },
    });
    expect(other.status).toBe(201);
  });

  it('refuses renaming an organization to another one’s name in any case; changing the case of its own is fine', async () => {
    const a = await t.fx.organization({ name: 'Clinic East' });
    const b = await t.fx.organization({ name: 'Clinic West' });
    const r = await t.api('PATCH', `/organization/${b}`, {
      token: t.rootToken,
      body: { name: 'CLINIC EAST', country: 'NL' },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('conflict');
    expect(r.body.msg).toContain("'CLINIC EAST'");
    // Nothing of the refused change is stored, not even its other fields.
    const kept = await t.api('GET', `/organization/${b}`, { token: t.rootToken });
    expect(kept.body).toMatchObject({ name: 'Clinic West', country: null });
    const own = await t.api('PATCH', `/organization/${a}`, {
      token: t.rootToken,
      body: { name: 'CLINIC EAST' },
    });
    expect(own.status).toBe(200);
    expect(own.body.name).toBe('CLINIC EAST');
  });

  it('lets one of several requests at the same moment for one name through', async () => {
    const answers = await Promise.all(
      ['Lab Twin', 'LAB TWIN', 'lab twin', 'Lab twin', 'lab TWIN', 'LAB twin'].map((name) =>
        t.api('POST', '/organization', { token: t.rootToken, body: { name } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    expect((await names()).filter((n) => n.toLowerCase() === 'lab twin')).toHaveLength(1);
  });

  it('lets any number of organizations have no name', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await t.api('POST', '/organization', { token: t.rootToken, body: { name: '' } });
      expect(r.status).toBe(201);
    }
  });
});

describe('a database that already holds names differing only in case', () => {
  it('starts with a warning naming them, and renames nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'federa-org-names-'));
    const db = TEST_DIALECT === 'postgres' ? await createTestDatabase() : null;
    const uri = db?.uri ?? `sqlite:///${join(dir, 'names.sqlite')}`;
    try {
      const first = await startTestServer({ dir: join(dir, 'a'), config: { uri } });
      const ids: number[] = [];
      for (const name of ['Twin', 'TWIN', 'Single'])
        ids.push(
          (
            await first.handle.ctx.dbh.db
              .insertInto('organization')
              .values({ name, public_key: '' })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id,
        );
      await first.close();
      const second = await startTestServer({ dir: join(dir, 'b'), config: { uri } });
      try {
        const warnings = second.logs.filter((l) => l.event === 'organization.names_clash');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]!.msg).toContain(`${ids[0]} 'Twin'`);
        expect(warnings[0]!.msg).toContain(`${ids[1]} 'TWIN'`);
        expect(warnings[0]!.msg).not.toContain('Single');
        const stored = await second.handle.ctx.dbh.db
          .selectFrom('organization')
          .select('name')
          .where('id', 'in', ids)
          .orderBy('id')
          .execute();
        expect(stored.map((r) => r.name)).toEqual(['Twin', 'TWIN', 'Single']);
      } finally {
        await second.close();
      }
    } finally {
      await db?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('vserver import', () => {
  const org = (name: string) => ({
    name,
    domain: null,
    address1: null,
    address2: null,
    zipcode: null,
    country: null,
    public_key: null,
    users: [],
  });

  it('refuses a file with two organization names differing only in case, naming the entry', () => {
    expect(() => parseFixture({ organizations: [org('Site One'), org('SITE ONE')] })).toThrow(FixtureError);
    expect(() => parseFixture({ organizations: [org('Site One'), org('SITE ONE')] })).toThrow(
      'organizations[1].name',
    );
  });

  it('refuses, storing nothing, an organization whose name differs only in case from one in the database', async () => {
    await t.fx.organization({ name: 'Site Two' });
    const before = await names();
    const attempt = importFixture(
      t.ctx.dbh,
      { bcrypt_rounds: 4 },
      parseFixture({ organizations: [org('Site Three'), org('SITE TWO')] }),
    );
    await expect(attempt).rejects.toThrow(FixtureError);
    await expect(attempt).rejects.toThrow("organizations[1].name: 'SITE TWO' differs only in case");
    expect((await names()).sort()).toEqual(before.sort());
  });
});
