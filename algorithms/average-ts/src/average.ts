/** Federated average of one column: each organization returns its sum and count, the master combines them. */
import type { AlgorithmClient, Row } from '@federa/algorithm-tools';

export interface Partial {
  sum: number;
  count: number;
}

export function RPC_partial_average(data: Row[], column: string): Partial {
  const values = data.map((r) => r[column]).filter((v): v is number => typeof v === 'number');
  return { sum: values.reduce((a, b) => a + b, 0), count: values.length };
}

export async function central_average(
  client: AlgorithmClient,
  _data: Row[],
  column: string,
): Promise<{ average: number | null; count: number; organizations: number }> {
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
