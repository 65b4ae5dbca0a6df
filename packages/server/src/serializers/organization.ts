import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.js';
import { groupIds } from '../http/references.js';
import { inOrder } from '../http/pagination.js';
import { Nullable, ReferenceList } from './common.js';

export const OrganizationSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Nullable(Type.String()),
    domain: Nullable(Type.String()),
    address1: Nullable(Type.String()),
    address2: Nullable(Type.String()),
    zipcode: Nullable(Type.String()),
    country: Nullable(Type.String()),
    public_key: Type.String({ description: 'base64 of the PEM public key; "" when none' }),
    collaborations: ReferenceList,
    nodes: ReferenceList,
    users: ReferenceList,
    results: ReferenceList,
    roles: Type.Array(Type.Integer()),
  },
  { $id: 'Organization' },
);
export type OrganizationOut = Static<typeof OrganizationSchema>;

/** Organizations by id, in the order given, with their relations loaded in batches. */
export async function loadOrganizations(ctx: AppContext, ids: number[]): Promise<OrganizationOut[]> {
  if (ids.length === 0) return [];
  const db = ctx.dbh.db;
  const [rows, collabs, nodes, users, results, roles] = await Promise.all([
    db.selectFrom('organization').selectAll().where('id', 'in', ids).execute(),
    db
      .selectFrom('member')
      .select(['organization_id as k', 'collaboration_id as v'])
      .where('organization_id', 'in', ids)
      .orderBy('collaboration_id')
      .execute(),
    db
      .selectFrom('node')
      .select(['organization_id as k', 'id as v'])
      .where('organization_id', 'in', ids)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('user')
      .select(['organization_id as k', 'id as v'])
      .where('organization_id', 'in', ids)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('result')
      .select(['organization_id as k', 'id as v'])
      .where('organization_id', 'in', ids)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('role')
      .select(['organization_id as k', 'id as v'])
      .where('organization_id', 'in', ids)
      .orderBy('id')
      .execute(),
  ]);
  const c = groupIds(collabs);
  const n = groupIds(nodes);
  const u = groupIds(users);
  const r = groupIds(results);
  const ro = groupIds(roles as { k: number; v: number }[]);
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
    collaborations: refs.many('collaboration', c.get(o.id)),
    nodes: refs.many('node', n.get(o.id)),
    users: refs.many('user', u.get(o.id)),
    results: refs.many('result', r.get(o.id)),
    roles: ro.get(o.id) ?? [],
  }));
}
