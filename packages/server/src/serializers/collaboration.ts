import type { Collaboration } from '@federa/common';
import type { AppContext } from '../context.js';
import { parseIdList } from '../db/id-list.js';
import { inOrder } from '../http/pagination.js';
import {
  collaborationHead,
  collaborationRows,
  collaborationWithTasksAfter,
} from '../repositories/collaboration.js';

export { CollaborationSchema } from '@federa/common';
export type CollaborationOut = Collaboration;

export async function loadCollaborations(ctx: AppContext, ids: number[]): Promise<CollaborationOut[]> {
  if (ids.length === 0) return [];
  const rows = await collaborationRows(ctx.dbh.db, ids);
  return inOrder(ids, rows).map((c) => ({
    id: c.id,
    name: c.name,
    encrypted: Boolean(c.encrypted),
    organizations: ctx.refs.many('organization', parseIdList(c.organization_ids)),
    nodes: ctx.refs.many('node', parseIdList(c.node_ids)),
    tasks: ctx.refs.many('task', parseIdList(c.task_ids)),
  }));
}

/** What a collaboration's answer shows besides its tasks, and the version and count of its set of tasks. */
interface Head {
  id: number;
  name: string;
  encrypted: unknown;
  organization_ids: string | null;
  node_ids: string | null;
  task_version: number | string | null;
  task_n: number | string | null;
}

/** The last answer given for a collaboration, and what it showed. */
interface KeptAnswer {
  head: Head & { task_ids: null };
  version: number;
  n: number;
  /** The highest task id listed (0: none). */
  lastTaskId: number;
  body: Buffer;
  /** Where `[…]` of the tasks lies in `body` (with n = 0 it holds `null`). */
  tasksAt: number;
  tasksEnd: number;
}

/**
 * The last answer of each collaboration, per server: `GET /collaboration/{id}` lists every task of the collaboration
 * (the 3.x contract), thousands of references that were read, written and copied for each request. At most a
 * quarter of `response_cache_mb` in all (0: none kept; docs/server-configuration.md), the oldest first out.
 */
class KeptAnswers {
  readonly #answers = new Map<number, KeptAnswer>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  get(id: number): KeptAnswer | undefined {
    return this.#answers.get(id);
  }

  keep(id: number, answer: KeptAnswer): void {
    this.#drop(id);
    if (answer.body.length > this.maxBytes) return;
    this.#bytes += answer.body.length;
    for (const oldest of this.#answers.keys()) {
      if (this.#bytes <= this.maxBytes) break;
      this.#drop(oldest);
    }
    this.#answers.set(id, answer);
  }

  #drop(id: number): void {
    const earlier = this.#answers.get(id);
    if (!earlier) return;
    this.#answers.delete(id);
    this.#bytes -= earlier.body.length;
  }
}

const keptByServer = new WeakMap<AppContext, KeptAnswers | null>();
const keptAnswers = (ctx: AppContext): KeptAnswers | null => {
  let kept = keptByServer.get(ctx);
  if (kept === undefined) {
    const maxBytes = (ctx.config.response_cache_mb * 1024 * 1024) / 4;
    kept = maxBytes > 0 ? new KeptAnswers(maxBytes) : null;
    keptByServer.set(ctx, kept);
  }
  return kept;
};

const versionOf = (head: Head): number | null =>
  head.task_version === null ? null : Number(head.task_version);

const sameHead = (a: Head, b: Head): boolean =>
  a.name === b.name &&
  a.encrypted === b.encrypted &&
  a.organization_ids === b.organization_ids &&
  a.node_ids === b.node_ids &&
  versionOf(a) === versionOf(b);

/**
 * One collaboration as the JSON text of {@link CollaborationSchema}, undefined when it does not exist.
 *
 * Its list of tasks grows with every task, so the last answer is kept ({@link KeptAnswers}) and given again while the
 * collaboration reads the same: its name, members and nodes, and the version of its set of tasks, which the database
 * moves on every task created, deleted or moved (migration 0018). When only tasks were added since, the answer is the
 * kept list with the new ones after it; any other change of the tasks reads them all again. Each answer is read in
 * one statement, so what it shows is one moment of the database. Why: docs/performance.md ("What limits each").
 */
export async function collaborationJson(ctx: AppContext, id: number): Promise<Buffer | undefined> {
  const db = ctx.dbh.db;
  const [head] = await collaborationHead(db, id);
  if (!head) return undefined;
  const answers = keptAnswers(ctx);
  const kept = answers?.get(id);
  if (kept && sameHead(kept.head, head)) return kept.body;
  // Only the tasks above the last one listed, when there was one (task ids only grow: AUTOINCREMENT, serial).
  const after = kept && kept.n > 0 ? kept.lastTaskId : 0;
  let [row] = await collaborationWithTasksAfter(db, id, after);
  if (!row) return undefined;
  let added = parseIdList(row.task_ids);
  // A task created moves the version and the count up by one, a task removed moves the version up and the count
  // down: equal moves mean that none was removed, and then the tasks read are all that were added, or some task
  // came in below the last one listed and everything is read again.
  const appended =
    kept !== undefined &&
    after > 0 &&
    (versionOf(row) ?? 0) - kept.version === Number(row.task_n ?? 0) - kept.n &&
    Number(row.task_n ?? 0) - kept.n === added.length;
  if (after > 0 && !appended) {
    [row] = await collaborationWithTasksAfter(db, id, 0);
    if (!row) return undefined;
    added = parseIdList(row.task_ids);
  }
  const refs = ctx.refs;
  const start = Buffer.from(
    `{"id":${row.id},"name":${JSON.stringify(row.name)},"encrypted":${Boolean(row.encrypted)}` +
      `,"organizations":${refs.manyJson('organization', parseIdList(row.organization_ids))}` +
      `,"nodes":${refs.manyJson('node', parseIdList(row.node_ids))},"tasks":`,
  );
  let tasks: Buffer[];
  if (!appended || !kept) tasks = [Buffer.from(refs.manyJson('task', added))];
  else if (added.length === 0) tasks = [kept.body.subarray(kept.tasksAt, kept.tasksEnd)];
  else
    tasks = [
      kept.body.subarray(kept.tasksAt, kept.tasksEnd - 1), // without its closing `]`
      Buffer.from(`,${refs.manyJson('task', added).slice(1)}`),
    ];
  const body = Buffer.concat([start, ...tasks, Buffer.from('}')]);
  const listed = appended && kept ? kept.n + added.length : added.length;
  const last = added.length > 0 ? added[added.length - 1]! : appended && kept ? kept.lastTaskId : 0;
  // Kept only when the count agrees with the tasks listed: the next answer builds on it.
  if (listed === Number(row.task_n ?? 0)) {
    answers?.keep(id, {
      head: { ...row, task_ids: null },
      version: versionOf(row) ?? 0,
      n: listed,
      lastTaskId: last,
      body,
      tasksAt: start.length,
      tasksEnd: body.length - 1,
    });
  }
  return body;
}
