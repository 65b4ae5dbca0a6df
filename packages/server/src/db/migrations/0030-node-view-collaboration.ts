import type { Kysely } from 'kysely';

/** The default roles that gain the rule, as they hold it when created (auth/rules.ts). */
const GAINING = ['Viewer', 'Researcher', 'Organization Admin', 'Collaboration Admin'];

/**
 * vantage6 4.x's *node VIEW COLLABORATION* (`node.v_col`): the nodes of the collaborations one's organization is
 * in, which 4.x's default Viewer and Researcher roles hold, so that a researcher lists the nodes of a
 * collaboration (docs/access-control.md#roles). A database made before it gets the rule, after every rule it
 * holds (no id changes), and its default roles get it as new ones are made with it. Default roles are otherwise
 * filled only when created (db/bootstrap.ts), so this is the one change made to them. A fresh database has no
 * rules yet: the start-up registers them all in catalogue order and makes the roles with it.
 */
export const nodeViewCollaboration = {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async up(db: Kysely<any>): Promise<void> {
    const any = await db.selectFrom('rule').select('id').limit(1).executeTakeFirst();
    if (!any) return;
    const rule = { name: 'node', operation: 'VIEW', scope: 'COLLABORATION' };
    const existing = await db
      .selectFrom('rule')
      .select('id')
      .where('name', '=', rule.name)
      .where('operation', '=', rule.operation)
      .where('scope', '=', rule.scope)
      .executeTakeFirst();
    const ruleId: number =
      existing?.id ??
      (
        await db
          .insertInto('rule')
          .values({ ...rule, description: 'view nodes of collaborations your organization is in' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const roles = await db
      .selectFrom('role')
      .select('id')
      .where('organization_id', 'is', null)
      .where('name', 'in', GAINING)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('role_rule')
              .select('role_rule.rule_id')
              .whereRef('role_rule.role_id', '=', 'role.id')
              .where('role_rule.rule_id', '=', ruleId),
          ),
        ),
      )
      .execute();
    if (roles.length)
      await db
        .insertInto('role_rule')
        .values(roles.map((r: { id: number }) => ({ role_id: r.id, rule_id: ruleId })))
        .execute();
  },
};
