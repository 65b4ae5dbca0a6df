import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processRegistry } from '@federa/common';
import { NodeMetrics } from '@federa/node';
import { ServerMetrics } from '@federa/server';

// The dashboard and docs/observability.md are checked against the metrics the server and the node register (with a
// PostgreSQL pool and an audit log, so that every optional series is there) and those of the process.

const ROOT = join(import.meta.dirname, '../../..');

async function registered(): Promise<Map<string, string>> {
  const server = new ServerMetrics({
    db: () => {
      throw new Error('not read here');
    },
    pool: () => null,
    audit: () => null,
  });
  const types = new Map<string, string>();
  for (const registry of [server.registry, new NodeMetrics().registry, processRegistry()])
    for (const m of registry.getMetricsAsArray())
      types.set(
        m.name,
        'type' in m && typeof m.type === 'string' ? m.type : m.constructor.name.toLowerCase(),
      );
  return types;
}

/** The metric names a PromQL expression reads (identifiers that are neither functions nor labels nor keywords). */
function seriesOf(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\{[^}]*\}/g, '{}');
  const words = withoutStrings.match(/[a-zA-Z_:][a-zA-Z0-9_:]*(?=\s*(\{|\[|\)|$|\s*[-+*/]))/g) ?? [];
  return words.filter((w) => /^(federa|nodejs|process)_/.test(w));
}

/** A series name's metric: a histogram's `_bucket`, `_count` and `_sum` belong to it. */
function metricOf(series: string, types: Map<string, string>): string | undefined {
  if (types.has(series)) return series;
  const base = series.replace(/_(bucket|count|sum)$/, '');
  return types.get(base) === 'histogram' ? base : undefined;
}

describe('the Grafana dashboard', () => {
  it('reads only series the server and the node serve, and reads every Federa metric', async () => {
    const types = await registered();
    const dashboard = JSON.parse(readFileSync(join(ROOT, 'docs/grafana-dashboard.json'), 'utf8')) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })),
    );
    expect(exprs.length).toBeGreaterThan(20);
    const read = new Set<string>();
    for (const { panel, expr } of exprs) {
      const series = seriesOf(expr);
      expect(series, `${panel}: ${expr}`).not.toHaveLength(0);
      for (const s of series) {
        const metric = metricOf(s, types);
        expect(metric, `${panel}: ${s} is served by neither the server nor the node`).toBeDefined();
        read.add(metric!);
      }
    }
    const federa = [...types.keys()].filter((n) => n.startsWith('federa_'));
    expect(federa.filter((n) => !read.has(n))).toEqual([]);
  });

  it('is caught reading a series nobody serves', async () => {
    const types = await registered();
    expect(seriesOf('sum by (route) (rate(federa_http_requests_total{job="x"}[5m]))')).toEqual([
      'federa_http_requests_total',
    ]);
    expect(metricOf('federa_http_requests_total', types)).toBeUndefined();
    expect(metricOf('federa_http_request_duration_seconds_bucket', types)).toBe(
      'federa_http_request_duration_seconds',
    );
  });
});

describe('docs/observability.md', () => {
  it('documents every Federa metric with its type, and no other', async () => {
    const types = await registered();
    const doc = readFileSync(join(ROOT, 'docs/observability.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `((?:federa)_[a-z0-9_]+)` \| (\w+) \|/gm)].map(
      (m) => [m[1]!, m[2]!] as const,
    );
    const documented = new Map(rows);
    const federa = [...types].filter(([n]) => n.startsWith('federa_'));
    expect(new Set(documented.keys())).toEqual(new Set(federa.map(([n]) => n)));
    for (const [name, type] of federa) expect(documented.get(name), name).toBe(type);
  });
});
