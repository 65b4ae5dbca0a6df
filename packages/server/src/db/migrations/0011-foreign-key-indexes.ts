import type { Kysely } from 'kysely';

/**
 * An index for every foreign key that had none leading with it (docs/performance.md, seventh session). Neither
 * SQLite nor PostgreSQL indexes the referencing column by itself, so without one:
 * - an organization's answer read every user and every role once per organization (its `users` and `roles`), and a
 *   collaboration's read every node (its `nodes`): a listing of ten organizations read the user table ten times;
 * - deleting an organization, a node, a role, a rule or a result read the whole referencing table to find the rows
 *   to delete or to refuse (`user`, `role`, `node_config`, `user_role`, `role_rule`, `user_rule`, `port`, `task`);
 * - every run read every port to say whether it has any (`has_ports`).
 * Two indexes go: `node_organization_collaboration` repeated `node_org_collab` (0001) column for column, and
 * `result_task` is the first column of `result_task_status_finished` (0002); each only cost every write.
 */
export const foreignKeyIndexes = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    const indexes: [name: string, table: string, column: string][] = [
      ['user_organization', 'user', 'organization_id'],
      ['role_organization', 'role', 'organization_id'],
      ['node_config_node', 'node_config', 'node_id'],
      ['user_role_role', 'user_role', 'role_id'],
      ['role_rule_rule', 'role_rule', 'rule_id'],
      ['user_rule_rule', 'user_rule', 'rule_id'],
      ['task_initiator', 'task', 'initiator_id'],
      ['port_result', 'port', 'result_id'],
    ];
    for (const [name, table, column] of indexes)
      await db.schema.createIndex(name).on(table).column(column).execute();
    // A collaboration's nodes, with their organization beside: the node of an organization in a collaboration
    // is found from either side.
    await db.schema
      .createIndex('node_collaboration_organization')
      .on('node')
      .columns(['collaboration_id', 'organization_id'])
      .execute();
    await db.schema.dropIndex('node_organization_collaboration').execute();
    await db.schema.dropIndex('result_task').execute();
  },
};
