/**
 * The import (fixture) file of `vserver import` (cli-config.md §4): organizations with their users, collaborations
 * with their participants and example tasks. Parsing checks every entry and names the bad one, e.g.
 * `collaborations[0].participants[1].api_key: expected a UUID …`, before anything is written.
 */
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';

export interface FixtureUser {
  readonly username: string;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly password: string;
  readonly email: string | null;
}

export interface FixtureOrganization {
  readonly name: string;
  readonly domain: string | null;
  readonly address1: string | null;
  readonly address2: string | null;
  readonly zipcode: string | null;
  readonly country: string | null;
  /** Base64 PEM, or '' when the organization has no key yet. */
  readonly public_key: string;
  readonly users: readonly FixtureUser[];
}

export interface FixtureParticipant {
  /** Organization name (of this fixture or already in the database). */
  readonly name: string;
  /** The node's API key: a UUID. */
  readonly api_key: string;
}

export interface FixtureCollaboration {
  readonly name: string;
  /** @default true */
  readonly encrypted: boolean;
  readonly participants: readonly FixtureParticipant[];
  /** Image names; each becomes an "Example task" with one result per member. */
  readonly tasks: readonly string[];
}

export interface Fixture {
  readonly organizations: readonly FixtureOrganization[];
  readonly collaborations: readonly FixtureCollaboration[];
}

/** An invalid fixture: `entry` is the path of the bad value, e.g. `organizations[2].users[0].password`. */
export class FixtureError extends Error {
  readonly entry: string;
  readonly source: string | undefined;

  constructor(entry: string, problem: string, source?: string, options?: { cause?: unknown }) {
    super(`${source ? `${source}: ` : ''}${entry ? `${entry}: ` : ''}${problem}`, options);
    this.name = 'FixtureError';
    this.entry = entry;
    this.source = source;
  }
}

const ORGANIZATION_KEYS = [
  'name',
  'domain',
  'address1',
  'address2',
  'zipcode',
  'country',
  'public_key',
] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads a YAML fixture file and checks it (see {@link parseFixture}). */
export function readFixtureFile(file: string): Fixture {
  let doc: unknown;
  try {
    doc = yaml.load(readFileSync(file, 'utf8'));
  } catch (cause) {
    const reason = (cause as Error).message.split('\n')[0] ?? '';
    throw new FixtureError('', `cannot read the fixture: ${reason}`, file, { cause });
  }
  return parseFixture(doc, file);
}

/** Checks a parsed fixture document and fills in the defaults. */
export function parseFixture(doc: unknown, source?: string): Fixture {
  const fail = (entry: string, problem: string): never => {
    throw new FixtureError(entry, problem, source);
  };
  if (doc === null || doc === undefined) return { organizations: [], collaborations: [] };
  if (!isRecord(doc)) return fail('', 'expected a mapping with the keys organizations and collaborations');
  for (const key of Object.keys(doc))
    if (key !== 'organizations' && key !== 'collaborations')
      fail(key, 'unknown key (expected organizations and collaborations)');

  const list = (value: unknown, entry: string): unknown[] =>
    value === undefined || value === null
      ? []
      : Array.isArray(value)
        ? value
        : fail(entry, 'expected a list');
  const text = (value: unknown, entry: string, required: boolean): string | null => {
    if (value === undefined || value === null || value === '')
      return required ? fail(entry, 'is required and may not be empty') : null;
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return String(value);
    return fail(entry, `expected text, got ${JSON.stringify(value)}`);
  };

  const organizations = list(doc.organizations, 'organizations').map((raw, i): FixtureOrganization => {
    const at = `organizations[${i}]`;
    if (!isRecord(raw)) return fail(at, 'expected a mapping');
    for (const key of ORGANIZATION_KEYS)
      if (!(key in raw))
        fail(
          `${at}.${key}`,
          `is missing (an organization has all of ${ORGANIZATION_KEYS.join(', ')}; values may be empty)`,
        );
    const users = list(raw.users, `${at}.users`).map((u, j): FixtureUser => {
      const uat = `${at}.users[${j}]`;
      if (!isRecord(u)) return fail(uat, 'expected a mapping');
      return {
        username: text(u.username, `${uat}.username`, true) ?? '',
        firstname: text(u.firstname, `${uat}.firstname`, false),
        lastname: text(u.lastname, `${uat}.lastname`, false),
        password: text(u.password, `${uat}.password`, true) ?? '',
        email: text(u.email, `${uat}.email`, false),
      };
    });
    return {
      name: text(raw.name, `${at}.name`, true) ?? '',
      domain: text(raw.domain, `${at}.domain`, false),
      address1: text(raw.address1, `${at}.address1`, false),
      address2: text(raw.address2, `${at}.address2`, false),
      zipcode: text(raw.zipcode, `${at}.zipcode`, false),
      country: text(raw.country, `${at}.country`, false),
      public_key: text(raw.public_key, `${at}.public_key`, false) ?? '',
      users,
    };
  });

  const collaborations = list(doc.collaborations, 'collaborations').map((raw, i): FixtureCollaboration => {
    const at = `collaborations[${i}]`;
    if (!isRecord(raw)) return fail(at, 'expected a mapping');
    const encrypted = raw.encrypted ?? true;
    if (typeof encrypted !== 'boolean') fail(`${at}.encrypted`, 'expected true or false');
    const participants = list(raw.participants, `${at}.participants`).map((p, j): FixtureParticipant => {
      const pat = `${at}.participants[${j}]`;
      if (!isRecord(p)) return fail(pat, 'expected a mapping with name and api_key');
      const apiKey = text(p.api_key, `${pat}.api_key`, true) ?? '';
      if (!UUID.test(apiKey))
        fail(
          `${pat}.api_key`,
          `expected a UUID such as 123e4567-e89b-12d3-a456-426614174000, got ${JSON.stringify(apiKey)}`,
        );
      return { name: text(p.name, `${pat}.name`, true) ?? '', api_key: apiKey.toLowerCase() };
    });
    const tasks = list(raw.tasks, `${at}.tasks`).map((t, j) => text(t, `${at}.tasks[${j}]`, true) ?? '');
    return {
      name: text(raw.name, `${at}.name`, true) ?? '',
      encrypted: encrypted as boolean,
      participants,
      tasks,
    };
  });

  // Within the file: names that must be unique, and API keys used once.
  const seen = (entries: { key: string; at: string }[], what: string): void => {
    const first = new Map<string, string>();
    for (const { key, at } of entries) {
      const earlier = first.get(key);
      if (earlier !== undefined) fail(at, `${what} ${JSON.stringify(key)} is also given at ${earlier}`);
      first.set(key, at);
    }
  };
  seen(
    organizations.map((o, i) => ({ key: o.name, at: `organizations[${i}].name` })),
    'the organization name',
  );
  seen(
    organizations.flatMap((o, i) =>
      o.users.map((u, j) => ({ key: u.username, at: `organizations[${i}].users[${j}].username` })),
    ),
    'the username',
  );
  seen(
    collaborations.map((c, i) => ({ key: c.name, at: `collaborations[${i}].name` })),
    'the collaboration name',
  );
  seen(
    collaborations.flatMap((c, i) =>
      c.participants.map((p, j) => ({
        key: p.api_key,
        at: `collaborations[${i}].participants[${j}].api_key`,
      })),
    ),
    'the api_key',
  );
  collaborations.forEach((c, i) =>
    seen(
      c.participants.map((p, j) => ({ key: p.name, at: `collaborations[${i}].participants[${j}].name` })),
      'the participant',
    ),
  );
  return { organizations, collaborations };
}
