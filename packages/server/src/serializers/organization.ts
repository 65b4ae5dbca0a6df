import type { Organization } from '@federa/common';
import type { AppContext } from '../context.js';
import { parseIdList } from '../db/id-list.js';
import { inOrder } from '../http/pagination.js';
import { organizationsWithRelations } from '../repositories/organization.js';

export { OrganizationSchema } from '@federa/common';
export type OrganizationOut = Organization;

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
