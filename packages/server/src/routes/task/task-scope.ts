import { ApiError } from '../../errors.js';
import type { AppContext } from '../../context.js';
import { reportedDatabaseLabels } from '../../repositories/task/index.js';
import { findStudy, studyMemberIds } from '../../repositories/study.js';

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

/**
 * A task scoped to a study (docs/vantage6-4.md#studies): the study is one of the task's collaboration, and every
 * receiving organization is part of it; else a 400 naming what is wrong, before anything is stored.
 */
export async function assertInStudy(
  ctx: AppContext,
  studyId: number,
  collaborationId: number,
  organizationIds: readonly number[],
): Promise<void> {
  const study = await findStudy(ctx.dbh.db, studyId);
  const invalid = (text: string) =>
    new ApiError('validation_failed', `field 'study_id' ${text}`, { extra: { message: { study_id: text } } });
  if (!study) throw invalid(`names study ${studyId}, which does not exist`);
  if (study.collaboration_id !== collaborationId)
    throw invalid(
      `names study ${studyId}, which is part of collaboration ${study.collaboration_id}, not ${collaborationId}`,
    );
  const members = new Set(await studyMemberIds(ctx.dbh.db, studyId));
  const outside = organizationIds.filter((id) => !members.has(id));
  if (outside.length > 0)
    throw invalid(`names study ${studyId}, which organization(s) ${outside.join(', ')} are not part of`);
}
