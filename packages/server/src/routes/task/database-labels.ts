import { ApiError } from '../../errors.js';
import type { AppContext } from '../../context.js';
import { reportedDatabaseLabels } from '../../repositories/task/index.js';

/**
 * A task asking a node for a database it does not have (docs/vantage6-4.md#several-databases-per-task): refused
 * before anything is stored, naming the label, the organization and the labels its node has. Only nodes that
 * reported their labels (vantage6 4.x nodes and Federa nodes sharing their configuration) are checked; a node that
 * did not is left to serve the label, or its `default`, as it does on the 3.x surface.
 */
export async function refuseMissingDatabases(
  ctx: AppContext,
  labels: readonly string[],
  nodeOf: ReadonlyMap<number, { id: number }>,
): Promise<void> {
  if (labels.length === 0) return;
  const reported = await reportedDatabaseLabels(
    ctx.dbh.db,
    [...nodeOf.values()].map((n) => n.id),
  );
  for (const [organizationId, node] of nodeOf) {
    const has = reported.get(node.id);
    const missing = has ? labels.find((l) => !has.has(l)) : undefined;
    if (!has || missing === undefined) continue;
    const text = `names database '${missing}', which the node of organization ${organizationId} does not have (it has: ${[...has].sort().join(', ')})`;
    throw new ApiError('validation_failed', `field 'databases' ${text}`, {
      extra: { message: { databases: text } },
    });
  }
}
