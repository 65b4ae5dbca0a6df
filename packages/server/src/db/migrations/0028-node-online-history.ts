import type { Kysely } from 'kysely';
import type { DialectName } from '../uri.js';

/**
 * `node_online_period`: when each node came online and when, and why, it went offline (docs/socket-protocol.md#online-history). Before, the server kept only a node's current `status` and `last_seen`, so an administrator could not
 * tell a node that drops out every night from one that was never started. A row is opened where the server marks
 * a node online and closed where it marks it offline (socket/presence.ts); each node keeps its latest periods only
 * (repositories/node-history.ts), so a node that flaps cannot grow the table without bound.
 */
export const nodeOnlineHistory = (dialect: DialectName) => ({
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('node_online_period')
      .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) =>
        dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn('node_id', 'integer', (c) => c.notNull().references('node.id').onDelete('cascade'))
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('end_reason', 'varchar(32)')
      .execute();
    // A node's periods newest first (the listing, the open one, the pruning), and the foreign key's index.
    await db.schema
      .createIndex('node_online_period_node')
      .on('node_online_period')
      .columns(['node_id', 'id'])
      .execute();
  },
});
