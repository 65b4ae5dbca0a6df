import type { TestApp } from './test-app.js';

/** A digest for tests: 64 hex digits from a seed. */
export const digestOf = (seed: number): string => `sha256:${seed.toString(16).padStart(64, '0')}`;

/** Calls the store inside a test app (`/store/api`), parsing the JSON answer. */
export async function storeApi(
  t: TestApp,
  method: string,
  path: string,
  o: {
    token?: string;
    body?: unknown;
    query?: Record<string, string | number | boolean>;
    headers?: Record<string, string>;
  } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.query ?? {})) query[k] = String(v);
  const res = await t.app.inject({
    method: method as 'GET',
    url: `${t.ctx.config.algorithm_store.path}${path}`,
    headers,
    query,
    ...(o.body !== undefined ? { payload: JSON.stringify(o.body) } : {}),
  });
  let body: unknown = res.body;
  try {
    body = res.body === '' ? null : JSON.parse(res.body);
  } catch {
    /* not JSON */
  }
  return { status: res.statusCode, body, headers: res.headers };
}

/** An author's description in vantage6's store format, as authors keep it. */
export function averageDescription(image: string, name = 'average') {
  return {
    name,
    display_name: 'Average',
    description: 'Mean of a numeric column over all nodes',
    image,
    partitioning: 'horizontal',
    vantage6_version: '4.14',
    code_url: 'https://example.org/average',
    documentation_url: 'https://example.org/average/docs',
    functions: [
      {
        name: 'central_average',
        display_name: 'Average',
        description: 'Combines the partial sums',
        type: 'central',
        standalone: true,
        databases: [{ name: 'Database', description: 'A table with the column' }],
        arguments: [
          { name: 'column_name', display_name: 'Column', type: 'column', description: 'The column' },
          {
            name: 'rounding',
            type: 'string',
            allowed_values: ['none', 'two'],
            has_default_value: true,
            default_value: 'none',
          },
          { name: 'org_ids', type: 'organization_list', has_default_value: true },
        ],
        ui_visualizations: [
          {
            name: 'Average',
            type: 'table',
            schema: { location: [], columns: ['average'], keys: ['average'] },
          },
        ],
      },
      {
        name: 'partial_average',
        type: 'federated',
        standalone: false,
        databases: [{ name: 'Database' }],
        arguments: [{ name: 'column_name', type: 'column' }],
      },
    ],
  };
}
