/**
 * What a task's runs say to the researcher in words: which runs wait on a node that is offline, which failed, and
 * what the results box says while there are no results (never "running" when nothing can run).
 */
import type { DecryptedResult } from '@federa/client';
import { isFailedRunStatus } from '@federa/common';

/** A run no node has taken on yet (or a node took on and has not started) whose node is not online. */
export function waitsOnOfflineNode(r: DecryptedResult): boolean {
  const status = r.status ?? 'pending';
  return (status === 'pending' || status === 'initializing') && r.node?.status !== 'online';
}

export function hasFailed(r: DecryptedResult): boolean {
  return r.status !== null && r.status !== undefined && isFailedRunStatus(r.status);
}

/** "a, b and c" */
export function listWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** The node of a run as its admin knows it, with the organization as the researcher knows it. */
export function nodeLabel(r: DecryptedResult, orgName: (id: number) => string): string {
  const org = orgName(r.organizationId);
  return r.node?.name ? `${r.node.name} (${org})` : `the node of ${org}`;
}

/** "The run at A crashed and the run at B ended "not allowed": its log under Runs says why." */
export function failureText(failed: readonly DecryptedResult[], orgName: (id: number) => string): string {
  const each = failed.map(
    (r) =>
      `the run at ${orgName(r.organizationId)} ${r.status === 'crashed' ? 'crashed' : `ended "${r.status ?? 'failed'}"`}`,
  );
  const text = listWords(each);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}: ${failed.length === 1 ? 'its log' : 'their logs'} under Runs ${
    failed.length === 1 ? 'says' : 'say'
  } why.`;
}

/**
 * The results box's line: why there are no results, or why some are missing (a failed run, a node offline);
 * null when every run gave its result.
 */
export function resultsLine(
  runs: readonly DecryptedResult[],
  shown: number,
  unfinished: boolean,
  orgName: (id: number) => string,
): string | null {
  const offline = runs.filter(waitsOnOfflineNode);
  const failed = runs.filter(hasFailed);
  const parts: string[] = [];
  if (failed.length > 0) parts.push(failureText(failed, orgName));
  if (offline.length > 0)
    parts.push(
      `Waiting for ${listWords(offline.map((r) => nodeLabel(r, orgName)))}, which ${
        offline.length === 1 ? 'is' : 'are'
      } offline: the task runs there when the node connects.`,
    );
  if (parts.length > 0)
    return `${shown === 0 ? 'No results.' : 'Some results are missing.'} ${parts.join(' ')}`;
  if (shown > 0) return null;
  return unfinished ? 'No results yet: the task is running.' : 'No readable results.';
}
