import type { Kysely } from 'kysely';
import type { Database, OrganizationRow } from '../db/schema.js';
import { preparedListing, rowsQuery, type CountQuery, type PreparedListing } from './listing.js';
import { can, type Caller } from '../auth/caller.js';
import { partnerOrganizations } from './collaboration.js';
import { prepared } from '../db/prepared.js';
import { idList } from '../db/id-list.js';

/** The editable fields of an organization (docs/api.md#organization). `""` is a valid value for each of them. */
export interface OrganizationFields {
  name?: string;
  domain?: string;
  address1?: string;
  address2?: string;
  zipcode?: string;
  country?: string;
  public_key?: string;
}

export const ORGANIZATION_FIELDS = [
  'name',
  'domain',
  'address1',
  'address2',
  'zipcode',
  'country',
  'public_key',
] as const;

/** Keeps the organization fields of a body whose value is a string; `null` and absent values are left out. */
export function organizationFields(
  body: Partial<Record<(typeof ORGANIZATION_FIELDS)[number], string | null | undefined>>,
): OrganizationFields {
  const out: OrganizationFields = {};
  for (const key of ORGANIZATION_FIELDS) {
    const value = body[key];
    if (typeof value === 'string') out[key] = value;
  }
  return out;
}

const organizationById = prepared((db, id: number) =>
  db.selectFrom('organization').selectAll().where('id', '=', id),
);

export async function findOrganization(
  db: Kysely<Database>,
  id: number,
): Promise<OrganizationRow | undefined> {
  const [row] = await organizationById(db, id);
  return row;
}

/** The ids among `ids` that name an existing organization, ascending. */
export async function existingOrganizationIds(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('organization')
    .select('id')
    .where('id', 'in', [...new Set(ids)])
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function createOrganization(db: Kysely<Database>, fields: OrganizationFields): Promise<number> {
  const row = await db
    .insertInto('organization')
    .values({
      name: fields.name ?? null,
      domain: fields.domain ?? null,
      address1: fields.address1 ?? null,
      address2: fields.address2 ?? null,
      zipcode: fields.zipcode ?? null,
      country: fields.country ?? null,
      public_key: fields.public_key ?? '',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function updateOrganization(
  db: Kysely<Database>,
  id: number,
  fields: OrganizationFields,
): Promise<void> {
  if (Object.keys(fields).length === 0) return;
  await db.updateTable('organization').set(fields).where('id', '=', id).execute();
}

/**
 * Which organizations a caller may view (docs/api.md#organizations): all (`organization.v_glo`), the partners of
 * their organization and itself (`v_col`: the organizations sharing a collaboration with it), their organization
 * only (`v_org`); null without any of these rules. The one place these rules are read: a listing turns the scope
 * into its query (partners as a subquery), a single organization's check into ids ({@link viewableOrganizations}).
 */
export type OrganizationScope = { all: true } | { partnersOf: number } | { only: number };

export function organizationScope(caller: Caller): OrganizationScope | null {
  if (can(caller, 'organization.v_glo')) return { all: true };
  if (can(caller, 'organization.v_col')) return { partnersOf: caller.organizationId };
  if (can(caller, 'organization.v_org')) return { only: caller.organizationId };
  return null;
}

/** The ids of the organizations a caller may view ({@link organizationScope}): `'all'`, a list, or null. */
export async function viewableOrganizations(
  db: Kysely<Database>,
  caller: Caller,
): Promise<number[] | 'all' | null> {
  const scope = organizationScope(caller);
  if (scope === null) return null;
  if ('all' in scope) return 'all';
  if ('partnersOf' in scope) return partnerOrganizations(db, scope.partnersOf);
  return [scope.only];
}

/** Organization rows with the id lists of their relations, in one query. */
export const organizationsWithRelations = rowsQuery((db, ids) =>
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

/** The filters of `GET /organization`; `name` is an SQL LIKE pattern. */
export interface OrganizationFilter {
  name?: string | undefined;
  country?: string | undefined;
  collaboration_id?: number | undefined;
  /** Only the organizations of this study (vantage6 4.x). */
  study_id?: number | undefined;
}

const organizationListing = preparedListing(
  (db, f: OrganizationListArgs) => {
    let ids = db.selectFrom('organization').select('organization.id as id').orderBy('organization.id');
    const partnersOf = f.partners_of;
    // A partner test per organization, not the partners as a list: the organizations are read in id order and
    // a page stops at its last row, where a list was sorted whole for every page (docs/performance.md).
    if (partnersOf !== undefined)
      ids = ids.where((eb) =>
        eb.or([
          eb('organization.id', '=', partnersOf),
          eb.exists(
            eb
              .selectFrom('member as m')
              .innerJoin('member as mine', 'mine.collaboration_id', 'm.collaboration_id')
              .select('m.organization_id')
              .whereRef('m.organization_id', '=', 'organization.id')
              .where('mine.organization_id', '=', partnersOf),
          ),
        ]),
      );
    if (f.only !== undefined) ids = ids.where('organization.id', '=', f.only);
    if (f.name !== undefined) ids = ids.where('organization.name', 'like', f.name);
    if (f.country !== undefined) ids = ids.where('organization.country', '=', f.country);
    const collaborationId = f.collaboration_id;
    if (collaborationId !== undefined) {
      ids = ids.where('organization.id', 'in', (eb) =>
        eb
          .selectFrom('member')
          .select('member.organization_id')
          .where('member.collaboration_id', '=', collaborationId),
      );
    }
    const studyId = f.study_id;
    if (studyId !== undefined)
      ids = ids.where('organization.id', 'in', (eb) =>
        eb
          .selectFrom('study_member')
          .select('study_member.organization_id')
          .where('study_member.study_id', '=', studyId),
      );
    return ids;
  },
  [],
  countedPartners,
);

type OrganizationListArgs = OrganizationFilter & {
  partners_of?: number | undefined;
  only?: number | undefined;
};

/**
 * The count of a partner listing with no other filter: the own organization and the members of its
 * collaborations, as one union read from the membership index, where counting the listing itself tests every
 * organization for a shared collaboration (a third of an organization page's time at 200 organizations,
 * docs/performance.md); undefined for any other listing.
 */
function countedPartners(db: Kysely<Database>, f: OrganizationListArgs): CountQuery | undefined {
  const p = f.partners_of;
  const others = [f.only, f.name, f.country, f.collaboration_id, f.study_id].some((v) => v !== undefined);
  if (p === undefined || others) return undefined;
  const partners = db
    .selectFrom('organization')
    .select('organization.id as id')
    .where('organization.id', '=', p)
    .union(
      db
        .selectFrom('member as m')
        .innerJoin('member as mine', 'mine.collaboration_id', 'm.collaboration_id')
        .select('m.organization_id as id')
        .where('mine.organization_id', '=', p),
    );
  return db.selectFrom(partners.as('partners')).select((eb) => eb.fn.countAll<number | string>().as('n'));
}

/** The ids of the organizations in `scope` matching `filter`, ascending. */
export function organizationIds(
  db: Kysely<Database>,
  scope: OrganizationScope,
  filter: OrganizationFilter,
): PreparedListing {
  return organizationListing(db, {
    partners_of: 'partnersOf' in scope ? scope.partnersOf : undefined,
    only: 'only' in scope ? scope.only : undefined,
    name: filter.name,
    country: filter.country,
    collaboration_id: filter.collaboration_id,
    study_id: filter.study_id,
  });
}
