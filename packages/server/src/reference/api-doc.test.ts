import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { POLICIES, type RoutePolicy } from '../auth/policy.js';
import { renderOpenApiJson } from './openapi-doc.js';

/** The endpoint tables of docs/api.md: `| `METHOD /path` (P) | callers | rules | what |`. */
function documentedEndpoints(): Map<string, { callers: string; rules: string; paginated: boolean }> {
  const page = readFileSync(new URL('../../../../docs/api.md', import.meta.url), 'utf8');
  const rows = new Map<string, { callers: string; rules: string; paginated: boolean }>();
  for (const line of page.split('\n')) {
    const m = /^\| `(GET|POST|PATCH|PUT|DELETE) (\/[^`]*)`( \(P\))? \|([^|]*)\|([^|]*)\|/.exec(line);
    if (!m) continue;
    const [, method = '', path = '', p, callers = '', rules = ''] = m;
    const key = `${method} ${path.replace(/\{([a-z_]+)\}/g, ':$1')}`;
    expect(rows.has(key), `${key} is listed twice in docs/api.md`).toBe(false);
    rows.set(key, { callers: callers.trim(), rules: rules.trim(), paginated: p !== undefined });
  }
  return rows;
}

const callersText = (p: RoutePolicy): string =>
  p.callers === 'public' ? 'anyone' : p.callers === 'refresh' ? 'refresh token' : p.callers.join(', ');
const rulesText = (p: RoutePolicy): string => (p.anyOf ?? []).map((r) => `\`${r}\``).join(' or ');

describe('docs/api.md', () => {
  it('lists every route of the policy table once, and no other', () => {
    expect([...documentedEndpoints().keys()].sort()).toEqual(Object.keys(POLICIES).sort());
  });

  it('gives each route the callers and rules of the policy table', () => {
    const rows = documentedEndpoints();
    const wrong = Object.entries(POLICIES).flatMap(([key, policy]) => {
      const row = rows.get(key);
      if (!row) return [];
      const want = { callers: callersText(policy), rules: rulesText(policy) };
      return row.callers === want.callers && row.rules === want.rules
        ? []
        : [
            `${key}: documented | ${row.callers} | ${row.rules} |, the policy is | ${want.callers} | ${want.rules} |`,
          ];
    });
    expect(wrong).toEqual([]);
  });

  it('marks (P) exactly the paginated listings', async () => {
    const doc = JSON.parse(await renderOpenApiJson()) as {
      paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
    };
    const wrong = [...documentedEndpoints()].flatMap(([key, row]) => {
      const [method = '', path = ''] = key.split(' ');
      const op = doc.paths[`/api${path.replace(/:([a-z_]+)/g, '{$1}')}`]?.[method.toLowerCase()];
      const paginated = (op?.parameters ?? []).some((p) => p.name === 'page');
      return paginated === row.paginated ? [] : [`${key}: (P) ${row.paginated ? 'marked' : 'missing'}`];
    });
    expect(wrong).toEqual([]);
  });
});
