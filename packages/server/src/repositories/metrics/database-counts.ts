import { sql, type Kysely } from 'kysely';
import { OPEN_RUN_STATUSES, RUN_STATUSES } from '@federa/common';
import type { Database } from '../../db/schema.js';

/** What the database holds, as the metrics show it; read in one query at scrape time. */
export interface DatabaseCounts {
  /** Runs per status (`unknown` for a run without one). */
  runs: Map<string, number>;
  /** Tasks per aggregate status (serializers/task.ts `taskStatus`). */
  tasks: Map<string, number>;
  /** Nodes per status (`online`, `offline`; `unknown` for a node never seen). */
  nodes: Map<string, number>;
  /** Bytes of the outputs held in the result store. */
  storedBytes: number;
}

const quoted = (values: readonly string[]): string =>
  values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ');

// The statuses are the fixed table of run-status.ts, never caller input: written into the SQL as literals so that the
// one statement is the same text every time (prepared once per connection on PostgreSQL).
const NOT_FAILED = quoted([...OPEN_RUN_STATUSES, 'completed']);

/**
 * One grouped query over runs, tasks and nodes. A task's status follows `taskStatus` (serializers/task.ts): no
 * runs → completed; no run with a status → unknown; any failed → failed; else the first of active, initializing,
 * pending that a run has; else completed.
 */
const QUERY = sql<{ kind: string; label: string | null; n: number | string | null }>`
SELECT 'run' AS kind, status AS label, COUNT(*) AS n FROM result GROUP BY status
UNION ALL
SELECT 'node' AS kind, status AS label, COUNT(*) AS n FROM node GROUP BY status
UNION ALL
SELECT 'stored' AS kind, NULL AS label, COALESCE(SUM(result_size), 0) AS n FROM result
UNION ALL
SELECT 'task' AS kind, s.label AS label, COUNT(*) AS n
FROM (
  SELECT CASE
      WHEN t.runs = 0 THEN 'completed'
      WHEN t.known = 0 THEN 'unknown'
      WHEN t.failed > 0 THEN 'failed'
      WHEN t.active > 0 THEN 'active'
      WHEN t.initializing > 0 THEN 'initializing'
      WHEN t.pending > 0 THEN 'pending'
      ELSE 'completed' END AS label
  FROM (
    SELECT task.id,
      COUNT(r.id) AS runs,
      COUNT(r.status) AS known,
      SUM(CASE WHEN r.status IS NOT NULL AND r.status NOT IN (${sql.raw(NOT_FAILED)}) THEN 1 ELSE 0 END) AS failed,
      SUM(CASE WHEN r.status = 'active' THEN 1 ELSE 0 END) AS active,
      SUM(CASE WHEN r.status = 'initializing' THEN 1 ELSE 0 END) AS initializing,
      SUM(CASE WHEN r.status = 'pending' THEN 1 ELSE 0 END) AS pending
    FROM task LEFT JOIN result r ON r.task_id = task.id
    GROUP BY task.id
  ) t
) s
GROUP BY s.label`;

const KNOWN_RUN_STATUSES: ReadonlySet<string> = new Set(RUN_STATUSES);

/** Reads {@link DatabaseCounts}. A status outside the known table is counted as `other` (labels stay bounded). */
export async function readDatabaseCounts(db: Kysely<Database>): Promise<DatabaseCounts> {
  const { rows } = await QUERY.execute(db);
  const counts: DatabaseCounts = { runs: new Map(), tasks: new Map(), nodes: new Map(), storedBytes: 0 };
  const add = (map: Map<string, number>, label: string, n: number): void => {
    map.set(label, (map.get(label) ?? 0) + n);
  };
  for (const row of rows) {
    const n = Number(row.n ?? 0);
    if (row.kind === 'stored') counts.storedBytes = n;
    else if (row.kind === 'run')
      add(
        counts.runs,
        row.label === null ? 'unknown' : KNOWN_RUN_STATUSES.has(row.label) ? row.label : 'other',
        n,
      );
    else if (row.kind === 'task') add(counts.tasks, row.label ?? 'unknown', n);
    else if (row.kind === 'node')
      add(counts.nodes, row.label === 'online' || row.label === 'offline' ? row.label : 'unknown', n);
  }
  return counts;
}
