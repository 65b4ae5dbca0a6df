import type { Kysely } from 'kysely';
import { RunStatus, SocketRooms } from '@federa/common';
import type { Database, TaskRow } from '../../db/schema.js';
import type { EventBus } from '../../context.js';
import { nowStored } from '../../db/stored-time.js';

/** The status the server gives results it kills (docs/run-statuses.md). */
export const KILLED_STATUS = RunStatus.killed;

export interface KillEntry {
  task_id: number;
  result_id: number;
  organization_id: number;
}

/** A task and all its descendants at any depth (sub-tasks, their sub-tasks, …), the task first. */
export async function taskTree(db: Kysely<Database>, rootId: number): Promise<number[]> {
  const tree = [rootId];
  const seen = new Set(tree);
  let frontier = tree;
  while (frontier.length > 0) {
    const children = await db.selectFrom('task').select('id').where('parent_id', 'in', frontier).execute();
    frontier = children.map((c) => c.id).filter((id) => !seen.has(id));
    for (const id of frontier) seen.add(id);
    tree.push(...frontier);
  }
  return tree;
}

/** Whether any run of the task or of its descendants is still open (not finished). */
export async function hasOpenRunInTree(db: Kysely<Database>, rootId: number): Promise<boolean> {
  const tree = await taskTree(db, rootId);
  const open = await db
    .selectFrom('result')
    .select('id')
    .where('task_id', 'in', tree)
    .where('finished_at', 'is', null)
    .executeTakeFirst();
  return open !== undefined;
}

/** Marks the open runs among `ids` killed, finished now; finished runs keep their status and output. */
async function markKilled(db: Kysely<Database>, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('result')
    .set({ status: KILLED_STATUS, finished_at: nowStored() })
    .where('id', 'in', ids)
    .where('finished_at', 'is', null)
    .execute();
}

interface KillRow {
  id: number;
  task_id: number;
  organization_id: number;
  collaboration_id: number | null;
  initiator_id: number;
}

/** The runs of the tasks `tree`, finished or not, with their task's collaboration and initiator. */
function treeRuns(db: Kysely<Database>, tree: number[]): Promise<KillRow[]> {
  return db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select([
      'result.id',
      'result.task_id',
      'result.organization_id',
      'task.collaboration_id',
      'task.initiator_id',
    ])
    .where('task.id', 'in', tree)
    .orderBy('result.id')
    .execute();
}

/**
 * The kill procedure (docs/run-statuses.md, docs/node-protocol.md#kill): marks every open run of the task and of its
 * descendants at any depth `killed by user`, finished now, then emits `kill_containers` to each collaboration
 * concerned, one entry per result with its own task id. Marked first, so a node that asks the server about a run
 * (at the event, or at its next connection when it was offline) hears it is killed, and never starts it.
 */
export async function killTask(
  db: Kysely<Database>,
  events: EventBus,
  task: Pick<TaskRow, 'id' | 'collaboration_id'>,
): Promise<KillEntry[]> {
  const rows: KillRow[] = [];
  const listed = new Set<number>();
  // Again until a look finds no run it had not seen: a sub-task whose creation passed its parent's check before
  // the runs were marked is in the tree by the next look (repositories/task/create.ts holds the parent's open run
  // until the sub-task is stored), and none is created after (its parent is complete).
  for (;;) {
    const found = (await treeRuns(db, await taskTree(db, task.id))).filter((r) => !listed.has(r.id));
    if (found.length === 0) break;
    for (const r of found) listed.add(r.id);
    rows.push(...found);
    await markKilled(
      db,
      found.map((r) => r.id),
    );
  }
  rows.sort((a, b) => a.id - b.id);
  const byCollaboration = new Map<number, KillEntry[]>();
  const concerned = new Map<number, number[]>();
  for (const r of rows) {
    const collaboration = r.collaboration_id ?? task.collaboration_id;
    if (collaboration === null) continue;
    const list = byCollaboration.get(collaboration) ?? [];
    list.push({ task_id: r.task_id, result_id: r.id, organization_id: r.organization_id });
    byCollaboration.set(collaboration, list);
    concerned.set(collaboration, [
      ...(concerned.get(collaboration) ?? []),
      r.organization_id,
      r.initiator_id,
    ]);
  }
  for (const [collaboration, killList] of byCollaboration)
    events.emit(SocketRooms.audience(collaboration, concerned.get(collaboration) ?? []), 'kill_containers', {
      kill_list: killList,
      collaboration_id: collaboration,
    });
  return [...byCollaboration.values()].flat();
}

/**
 * `POST /kill/node/tasks`: marks every open run addressed to the node (its organization's, in its collaboration)
 * `killed by user`, then emits `kill_containers` for the node. Returns the ids of the runs that were open.
 */
export async function killNodeRuns(
  db: Kysely<Database>,
  events: EventBus,
  node: { id: number; organization_id: number; collaboration_id: number },
): Promise<number[]> {
  const open = await db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select(['result.id', 'task.initiator_id'])
    .where('result.organization_id', '=', node.organization_id)
    .where('task.collaboration_id', '=', node.collaboration_id)
    .where('result.finished_at', 'is', null)
    .execute();
  await markKilled(
    db,
    open.map((r) => r.id),
  );
  const concerned = [node.organization_id, ...open.map((r) => r.initiator_id)];
  events.emit(SocketRooms.audience(node.collaboration_id, concerned), 'kill_containers', {
    node_id: node.id,
    collaboration_id: node.collaboration_id,
  });
  return open.map((r) => r.id);
}

/** An open run addressed to a node, with the organization that posted the task its run started from. */
export interface OpenNodeRun extends KillEntry {
  /** The initiator of the run's first task (a sub-task's own initiator is the organization of its container). */
  posted_by: number;
}

/** The open runs addressed to the node (its organization's, in its collaboration), in id order. */
export async function openNodeRuns(
  db: Kysely<Database>,
  node: { organization_id: number; collaboration_id: number },
): Promise<OpenNodeRun[]> {
  const rows = await db
    .selectFrom('result')
    .innerJoin('task', 'task.id', 'result.task_id')
    .select((eb) => [
      'result.id as result_id',
      'result.task_id',
      'result.organization_id',
      'task.initiator_id',
      eb
        .selectFrom('task as first')
        .select('first.initiator_id')
        .whereRef('first.run_id', '=', 'task.run_id')
        .where('first.parent_id', 'is', null)
        .orderBy('first.id')
        .limit(1)
        .as('first_initiator_id'),
    ])
    .where('result.organization_id', '=', node.organization_id)
    .where('task.collaboration_id', '=', node.collaboration_id)
    .where('result.finished_at', 'is', null)
    .orderBy('result.id')
    .execute();
  return rows.map((r) => ({
    result_id: r.result_id,
    task_id: r.task_id,
    organization_id: r.organization_id,
    posted_by: r.first_initiator_id ?? r.initiator_id,
  }));
}

/**
 * Marks the runs `runs` of a node `killed by user` (those still open) and tells the node to stop exactly these
 * (a kill list, as for a killed task), so that a run addressed to the node meanwhile is not stopped with them.
 */
export async function killListedRuns(
  db: Kysely<Database>,
  events: EventBus,
  collaborationId: number,
  runs: readonly KillEntry[],
  concerned: readonly number[],
): Promise<void> {
  if (runs.length === 0) return;
  await markKilled(
    db,
    runs.map((r) => r.result_id),
  );
  events.emit(SocketRooms.audience(collaborationId, [...concerned]), 'kill_containers', {
    kill_list: runs.map((r) => ({
      task_id: r.task_id,
      result_id: r.result_id,
      organization_id: r.organization_id,
    })),
    collaboration_id: collaborationId,
  });
}
