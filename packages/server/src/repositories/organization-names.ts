/**
 * Organization names are unique without regard to case (docs/api.md#organizations): nodes name the organizations
 * they trust (`allowed_organizations`), and two organizations whose names differ only in case would be told apart
 * by nobody reading them. Databases made before this rule may hold such pairs; nothing renames them (the server
 * names them at start), and a new name or a rename may not make another.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { dialectSql } from '../db/dialects/sql.js';
import type { DialectName } from '../db/uri.js';
import { ApiError } from '../errors.js';

/** The organization, other than `exceptId`, whose name equals `name` without regard to case. */
export async function organizationNamed(
  db: Kysely<Database>,
  name: string,
  exceptId?: number,
): Promise<{ id: number; name: string } | undefined> {
  let q = db
    .selectFrom('organization')
    .select(['id', 'name'])
    .where(sql<string>`lower(name)`, '=', sql<string>`lower(${name})`);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  const row = await q.orderBy('id').executeTakeFirst();
  return row ? { id: row.id, name: row.name ?? '' } : undefined;
}

/** Says the name is taken without saying by whom (a caller may not be allowed to view that organization). */
export const organizationNameTaken = (name: string): ApiError =>
  new ApiError(
    'conflict',
    `The organization name '${name}' is already taken; organization names must be unique, regardless of case.`,
  );

/**
 * Runs `write` (which gives, or may give, an organization the name `name`) after checking that no other
 * organization has that name, in one transaction. On PostgreSQL one lock serializes these writes, so two
 * requests at the same moment cannot both pass the check; SQLite runs one write transaction at a time.
 * @throws ApiError `conflict` naming the name
 */
export async function withFreeOrganizationName<T>(
  db: Kysely<Database>,
  dialect: DialectName,
  name: string | undefined,
  exceptId: number | undefined,
  write: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  // An organization without a name (null or "") is named by nobody's policy: any number may have none.
  if (name === undefined || name === '') return write(db);
  return db.transaction().execute(async (trx) => {
    await dialectSql(dialect).serialize(trx, 'federa.organization.name');
    const holder = await organizationNamed(trx, name, exceptId);
    if (holder) throw organizationNameTaken(name);
    return write(trx);
  });
}

/** Groups of organizations whose names differ only in case (made before names had to be unique). */
export async function organizationsSharingAName(
  db: Kysely<Database>,
): Promise<{ id: number; name: string }[][]> {
  const rows = await db
    .selectFrom('organization')
    .select(['id', 'name', sql<string>`lower(name)`.as('folded')])
    .where(sql<string>`lower(name)`, 'in', (eb) =>
      eb
        .selectFrom('organization')
        .select(sql<string>`lower(name)`.as('n'))
        .where('name', 'is not', null)
        .where('name', '!=', '')
        .groupBy(sql`lower(name)`)
        .having((h) => h.fn.countAll(), '>', 1),
    )
    .orderBy('id')
    .execute();
  const groups = new Map<string, { id: number; name: string }[]>();
  for (const r of rows) {
    const key = r.folded;
    groups.set(key, [...(groups.get(key) ?? []), { id: r.id, name: r.name ?? '' }]);
  }
  return [...groups.values()];
}
