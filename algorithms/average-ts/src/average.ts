/** Federated average of one column: each organization returns its sum and count, the master combines them. */
import type { AlgorithmClient, Row } from '@federa/algorithm-tools';

export interface Partial {
  sum: number;
  count: number;
}

/** A misspelt column must fail the run, not "complete" with a count of 0 (algorithms/README.md). */
function checkColumn(data: Row[], column: unknown): asserts column is string {
  if (typeof column !== 'string' || column === '')
    throw new TypeError(`column must be the name of a column, got ${JSON.stringify(column)}`);
  if (data.length > 0 && !data.some((r) => column in r))
    throw new RangeError(
      `no column '${column}' in the data; its columns are: ${Object.keys(data[0] ?? {}).join(', ')}`,
    );
}

export function RPC_partial_average(data: Row[], column: string): Partial {
  checkColumn(data, column);
  const values = data.map((r) => r[column]).filter((v): v is number => typeof v === 'number');
  return { sum: values.reduce((a, b) => a + b, 0), count: values.length };
}

export async function central_average(
  client: AlgorithmClient,
  _data: Row[],
  column: string,
): Promise<{ average: number | null; count: number; organizations: number }> {
  if (typeof column !== 'string' || column === '')
    throw new TypeError(`column must be the name of a column, got ${JSON.stringify(column)}`);
  const organizations = await client.organizationIds();
  const partials = await client.run<Partial>({
    organizations,
    input: { method: 'partial_average', args: [column] },
    name: 'partial average',
  });
  const sum = partials.reduce((a, p) => a + p.sum, 0);
  const count = partials.reduce((a, p) => a + p.count, 0);
  return { average: count > 0 ? sum / count : null, count, organizations: partials.length };
}
