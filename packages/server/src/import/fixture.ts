/**
 * The import (fixture) file of `vserver import` (format: docs/import-format.md): organizations with their users,
 * collaborations with their participants and example tasks. Parsing checks every entry, refuses keys it does not
 * know, and names the bad one with its file and line, e.g.
 * `import.yaml:14: collaborations[0].participants[1].api_key: expected a UUID …`, before anything is written.
 */
import { readFileSync } from 'node:fs';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node as YamlNode } from 'yaml';

import type { ImportedOrganization } from '../repositories/import.js';
import { ORGANIZATION_FIELDS } from '../repositories/organization.js';

export interface FixtureUser {
  readonly username: string;
  readonly firstname: string | null;
  readonly lastname: string | null;
  readonly password: string;
  readonly email: string | null;
  /**
   * Names of the roles the user gets, and no others: `super` (every rule; made for the organization when first
   * named), a default role (`Root`, `Viewer`, `Researcher`, `Organization Admin`, `Collaboration Admin`) or a role
   * of the organization already in the database.
   */
  readonly roles: readonly string[];
}

/** An organization of the file: the columns the import writes (public_key: base64 PEM, or '' when none yet). */
export interface FixtureOrganization extends ImportedOrganization {
  readonly users: readonly FixtureUser[];
}

export interface FixtureParticipant {
  /** Organization name (of this fixture or already in the database). */
  readonly name: string;
  /** The node's API key: a UUID; undefined: the import generates one (and prints it). */
  readonly api_key: string | undefined;
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
  readonly problem: string;
  readonly line: number | undefined;

  constructor(
    entry: string,
    problem: string,
    source?: string,
    options?: { cause?: unknown; line?: number | undefined },
  ) {
    const where = source ? `${source}${options?.line !== undefined ? `:${options.line}` : ''}: ` : '';
    super(`${where}${entry ? `${entry}: ` : ''}${problem}`, options);
    this.name = 'FixtureError';
    this.entry = entry;
    this.source = source;
    this.problem = problem;
    this.line = options?.line;
  }
}

/** The keys each level of the file may have (docs/import-format.md). */
const KNOWN_KEYS = {
  organization: ['name', 'domain', 'address1', 'address2', 'zipcode', 'country', 'public_key', 'users'],
  user: ['username', 'firstname', 'lastname', 'password', 'email', 'roles'],
  collaboration: ['name', 'encrypted', 'participants', 'tasks'],
  participant: ['name', 'api_key'],
} as const;

/** A hint for keys people write by mistake, keyed by `<level>.<key>`. */
const KEY_HINTS: Record<string, string> = {
  'collaboration.organizations': 'the organizations of a collaboration are its participants (name, api_key)',
  'collaboration.members': 'the organizations of a collaboration are its participants (name, api_key)',
  'collaboration.nodes': 'each participant gets one node (name, api_key)',
  'user.role': "the key is 'roles', a list of role names",
  'user.organization': 'a user belongs to the organization it is listed under',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A parsed fixture file and where its entries are, for messages that name the line. */
export interface FixtureFile {
  readonly fixture: Fixture;
  /** The fixture's name in messages (the admin's file, not the path inside a container). */
  readonly source: string;
  /** The 1-based line of an entry such as `collaborations[0].participants[1].api_key` (or of its nearest parent). */
  lineOf(entry: string): number | undefined;
}

const pathOf = (entry: string): (string | number)[] =>
  entry === ''
    ? []
    : entry
        .split(/\.|(?=\[)/)
        .filter((p) => p !== '')
        .map((p) => (/^\[\d+\]$/.test(p) ? Number(p.slice(1, -1)) : p));

/**
 * Reads a YAML fixture file and checks it (see {@link parseFixture}). `source` names the file in messages
 * (default: `file`); errors carry its line.
 */
export function loadFixtureFile(file: string, source: string = file): FixtureFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new FixtureError('', `cannot read the fixture: ${(cause as Error).message}`, source, { cause });
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError) {
    const at = lines.linePos(firstError.pos[0]).line;
    throw new FixtureError('', `not valid YAML: ${firstError.message.split('\n')[0] ?? ''}`, source, {
      line: at,
    });
  }
  const lineOf = (entry: string): number | undefined => {
    let node: unknown = doc.contents;
    let found: YamlNode | undefined = isMap(node) || isSeq(node) || isScalar(node) ? node : undefined;
    const steps = pathOf(entry);
    for (const [n, step] of steps.entries()) {
      const last = n === steps.length - 1;
      if (typeof step === 'number' && isSeq(node)) node = node.items[step];
      else if (typeof step === 'string' && isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === step);
        if (!pair) break;
        // The line of `key:` itself (a value may start on a later line, or be missing).
        if (isScalar(pair.key)) found = pair.key;
        node = pair.value;
        if (!last && (isMap(node) || isSeq(node))) found = node;
        continue;
      } else break;
      if (isMap(node) || isSeq(node) || isScalar(node)) found = node;
      else break;
    }
    const offset = found?.range?.[0];
    return offset === undefined ? undefined : lines.linePos(offset).line;
  };
  try {
    return { fixture: parseFixture(doc.toJS(), source), source, lineOf };
  } catch (error) {
    if (error instanceof FixtureError) throw withLine(error, source, lineOf);
    throw error;
  }
}

/** The same error, naming `source` and the entry's line. */
export function withLine(
  error: FixtureError,
  source: string,
  lineOf: (entry: string) => number | undefined,
): FixtureError {
  return new FixtureError(error.entry, error.problem, source, { cause: error, line: lineOf(error.entry) });
}

/** Reads a YAML fixture file and checks it (see {@link parseFixture}). */
export function readFixtureFile(file: string, source: string = file): Fixture {
  return loadFixtureFile(file, source).fixture;
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

  const onlyKnown = (raw: Record<string, unknown>, level: keyof typeof KNOWN_KEYS, at: string): void => {
    const known: readonly string[] = KNOWN_KEYS[level];
    for (const key of Object.keys(raw))
      if (!known.includes(key))
        fail(
          `${at}.${key}`,
          `unknown key '${key}'${KEY_HINTS[`${level}.${key}`] ? ` (${KEY_HINTS[`${level}.${key}`]})` : ''}; a ${level} has ${known.join(', ')}`,
        );
  };

  const organizations = list(doc.organizations, 'organizations').map((raw, i): FixtureOrganization => {
    const at = `organizations[${i}]`;
    if (!isRecord(raw)) return fail(at, 'expected a mapping');
    onlyKnown(raw, 'organization', at);
    for (const key of ORGANIZATION_FIELDS)
      if (!(key in raw))
        fail(
          `${at}.${key}`,
          `is missing (an organization has all of ${ORGANIZATION_FIELDS.join(', ')}; values may be empty)`,
        );
    const users = list(raw.users, `${at}.users`).map((u, j): FixtureUser => {
      const uat = `${at}.users[${j}]`;
      if (!isRecord(u)) return fail(uat, 'expected a mapping');
      onlyKnown(u, 'user', uat);
      const roles = list(u.roles, `${uat}.roles`).map((r, k) => text(r, `${uat}.roles[${k}]`, true) ?? '');
      return {
        roles,
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
    onlyKnown(raw, 'collaboration', at);
    const encrypted = raw.encrypted ?? true;
    if (typeof encrypted !== 'boolean') fail(`${at}.encrypted`, 'expected true or false');
    const participants = list(raw.participants, `${at}.participants`).map((p, j): FixtureParticipant => {
      const pat = `${at}.participants[${j}]`;
      if (!isRecord(p)) return fail(pat, 'expected a mapping with name and api_key');
      onlyKnown(p, 'participant', pat);
      const apiKey = text(p.api_key, `${pat}.api_key`, false);
      if (apiKey !== null && !UUID.test(apiKey))
        fail(
          `${pat}.api_key`,
          `expected a UUID such as 123e4567-e89b-12d3-a456-426614174000 (or no api_key: one is generated), got ${JSON.stringify(apiKey)}`,
        );
      return { name: text(p.name, `${pat}.name`, true) ?? '', api_key: apiKey?.toLowerCase() };
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
    organizations.map((o, i) => ({ key: o.name.toLowerCase(), at: `organizations[${i}].name` })),
    'the organization name (compared regardless of case)',
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
      c.participants.flatMap((p, j) =>
        p.api_key === undefined
          ? []
          : [{ key: p.api_key, at: `collaborations[${i}].participants[${j}].api_key` }],
      ),
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
