import type { Organization } from '@federa/common';
import type { AppContext } from '../context.js';
import { idList, parseIdList } from '../db/id-list.js';
import { prepared } from '../db/prepared.js';
import { inOrder } from '../http/pagination.js';

export { OrganizationSchema } from '@federa/common';
export type OrganizationOut = Organization;

/** Organization rows with the id lists of their relations, in one query. */
const organizationsWithRelations = prepared((db, ids: readonly number[]) =>
  db
    .selectFrom('organization as o')
    .selectAll('o')
    .select((eb) => [
      eb
        .selectFrom('member')
        .select((sub) => idList(sub.ref('member.collaboration_id')).as('ids'))
        .whereRef('member.organization_id', '=', 'o.id')
        .as('collaboration_ids'),
      eb
        .selectFrom('node')
        .select((sub) => idList(sub.ref('node.id')).as('ids'))
        .whereRef('node.organization_id', '=', 'o.id')
        .as('node_ids'),
      eb
        .selectFrom('user')
        .select((sub) => idList(sub.ref('user.id')).as('ids'))
        .whereRef('user.organization_id', '=', 'o.id')
        .as('user_ids'),
      eb
        .selectFrom('result')
        .select((sub) => idList(sub.ref('result.id')).as('ids'))
        .whereRef('result.organization_id', '=', 'o.id')
        .as('result_ids'),
      eb
        .selectFrom('role')
        .select((sub) => idList(sub.ref('role.id')).as('ids'))
        .whereRef('role.organization_id', '=', 'o.id')
        .as('role_ids'),
    ])
    .where('o.id', 'in', ids),
);

/** Organizations by id, in the order given, each with its relation lists, in one query. */
export async function loadOrganizations(ctx: AppContext, ids: number[]): Promise<OrganizationOut[]> {
  if (ids.length === 0) return [];
  const rows = await organizationsWithRelations(ctx.dbh.db, ids);
  const refs = ctx.refs;
  return inOrder(ids, rows).map((o) => ({
    id: o.id,
    name: o.name,
    domain: o.domain,
    address1: o.address1,
    address2: o.address2,
    zipcode: o.zipcode,
    country: o.country,
    public_key: o.public_key ?? '',
    collaborations: refs.many('collaboration', parseIdList(o.collaboration_ids)),
    nodes: refs.many('node', parseIdList(o.node_ids)),
    users: refs.many('user', parseIdList(o.user_ids)),
    results: refs.many('result', parseIdList(o.result_ids)),
    roles: parseIdList(o.role_ids),
  }));
}
