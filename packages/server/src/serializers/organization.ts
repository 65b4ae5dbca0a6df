import type { Organization } from '@federa/common';
import type { AppContext } from '../context.js';
import { parseIdList } from '../db/id-list.js';
import { fromRows, inOrder, type PageLoad } from '../http/pagination.js';
import type { RowOf } from '../repositories/listing.js';
import { organizationsWithRelations } from '../repositories/organization.js';

export { OrganizationSchema } from '@federa/common';
export type OrganizationOut = Organization;

/** Organizations by id, in the order given, each with its relation lists, in one query. */
export async function loadOrganizations(ctx: AppContext, ids: number[]): Promise<OrganizationOut[]> {
  if (ids.length === 0) return [];
  return organizationsOf(ctx, inOrder(ids, await organizationsWithRelations.byIds(ctx.dbh.db, ids)));
}

/** Organizations as {@link loadOrganizations} makes them, from the rows of a listing's page. */
export const organizationPage = (ctx: AppContext): PageLoad<OrganizationOut> =>
  fromRows(organizationsWithRelations, (rows) => organizationsOf(ctx, rows));

function organizationsOf(
  ctx: AppContext,
  rows: readonly RowOf<typeof organizationsWithRelations>[],
): OrganizationOut[] {
  const refs = ctx.refs;
  return rows.map((o) => ({
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
