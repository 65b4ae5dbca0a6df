/**
 * A node's `allowed_organizations` by name against a real server (SQLite, or PostgreSQL with
 * FEDERA_TEST_DB=postgres), looked up the way the node does it: `GET /organization?name=` with the node's token.
 * The server's lookup is a LIKE pattern; the policy must allow exactly the organization the node admin named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '@federa/testing';
import { listOf } from '@federa/common';

import { OrganizationPins, type NamedOrganization, type OrganizationsNamed } from './organization-pins.js';
import { checkPolicies } from './policy.js';

let t: TestApp;
let nodeToken: string;
const lookup: OrganizationsNamed = async (name) => {
  const r = await t.api('GET', '/organization', { token: nodeToken, query: { name } });
  expect(r.status).toBe(200);
  return listOf<NamedOrganization>(r.body);
};
const orgs: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestApp();
  for (const name of ['Org_A', 'OrgXA', 'Clinic', 'Lab', 'Intruder'])
    orgs[name] = await t.fx.organization({ name });
  const collaboration = await t.fx.collaboration(Object.values(orgs));
  nodeToken = await (await t.fx.node(orgs.Lab!, collaboration)).token();
}, 60_000);
afterAll(async () => t.close());

const rename = async (id: number, name: string) => {
  const r = await t.api('PATCH', `/organization/${id}`, { token: t.rootToken, body: { name } });
  expect(r.status).toBe(200);
};

/** Whether a task of `initiator` passes a node that allows `allowed` only. */
const passes = async (pins: OrganizationPins, allowed: string, initiator: number) =>
  (
    await checkPolicies(
      { image: 'federa/any', initiator },
      { allowedAlgorithms: undefined, allowedUsers: undefined, allowedOrganizations: [allowed] },
      (name) => pins.idsFor(name),
    )
  ).allowed;

describe('allowed_organizations by name', () => {
  it('allows the organization of exactly that name, not one its wildcards or case would match', async () => {
    const pins = await OrganizationPins.pin(['Org_A', 'clinic'], lookup);
    expect(await passes(pins, 'Org_A', orgs.Org_A!)).toBe(true);
    // `_` is a LIKE wildcard: the server's lookup answers OrgXA too.
    expect((await lookup('Org_A')).map((o) => o.id)).toContain(orgs.OrgXA);
    expect(await passes(pins, 'Org_A', orgs.OrgXA!)).toBe(false);
    // "clinic" is not the name of "Clinic" (SQLite's LIKE would say it is).
    expect(await passes(pins, 'clinic', orgs.Clinic!)).toBe(false);
  });

  it('is never widened by a rename: the name stays with the organization that had it at the start', async () => {
    const pins = await OrganizationPins.pin(['Lab'], lookup);
    expect(await passes(pins, 'Lab', orgs.Lab!)).toBe(true);
    // Lab gives up its name and another organization takes it: neither is allowed any more.
    await rename(orgs.Lab!, 'Lab (old)');
    await rename(orgs.Intruder!, 'Lab');
    expect(await passes(pins, 'Lab', orgs.Intruder!)).toBe(false);
    expect(await passes(pins, 'Lab', orgs.Lab!)).toBe(false);
    // Taking its name back makes Lab allowed again; the intruder, renamed away, stays refused.
    await rename(orgs.Intruder!, 'Intruder');
    await rename(orgs.Lab!, 'Lab');
    expect(await passes(pins, 'Lab', orgs.Lab!)).toBe(true);
    expect(await passes(pins, 'Lab', orgs.Intruder!)).toBe(false);
  });

  it('allows nobody for a name that was no organization at the start, even once one takes it', async () => {
    const pins = await OrganizationPins.pin(['Newcomer'], lookup);
    await rename(orgs.Intruder!, 'Newcomer');
    expect(await passes(pins, 'Newcomer', orgs.Intruder!)).toBe(false);
    await rename(orgs.Intruder!, 'Intruder');
  });
});
