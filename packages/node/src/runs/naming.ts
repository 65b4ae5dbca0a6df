/**
 * Names of the node's Docker objects and files (docs/container-environment.md#names-labels-and-networks, docs/docker.md#3-names-and-labels-the-node-uses: `<prefix>-<node_name>-…`).
 */
import { posix } from 'node:path';
import type { NodeNames } from '@federa/common';

export { dataVolumeName, networkName, tmpVolumeName, type NodeNames } from '@federa/common';

/** Algorithm container of one result. */
export const algorithmContainerName = (n: NodeNames, resultId: number): string =>
  `${n.prefix}-${n.node}-result-${resultId}`;

/** Labels that mark a node's algorithm containers (3.x names, so `listContainers` finds them after a restart). */
export const algorithmLabels = (
  n: NodeNames,
  ids: { resultId: number; taskId: number; runId: number },
): Record<string, string> => ({
  'vantage6-type': 'algorithm',
  node: n.node,
  result_id: String(ids.resultId),
  'federa.task_id': String(ids.taskId),
  'federa.run_id': String(ids.runId),
  'federa.prefix': n.prefix,
});

/** `task-000000042` for result 42. */
export const taskFolderName = (resultId: number): string => `task-${String(resultId).padStart(9, '0')}`;

export const CONTAINER_DATA_DIR = '/mnt/data';
export const CONTAINER_TMP_DIR = '/mnt/tmp';

/** Paths of a run's files as the container sees them. */
export function containerRunFiles(resultId: number): { input: string; output: string; token: string } {
  const dir = posix.join(CONTAINER_DATA_DIR, taskFolderName(resultId));
  return { input: `${dir}/input`, output: `${dir}/output`, token: `${dir}/token` };
}
