import type { Kysely } from 'kysely';
import type { Database, NodeRow } from '../db/schema.js';
import { preparedListing, rowsQuery, type PreparedListing } from './listing.js';
import { hashApiKey, newApiKey } from '../auth/passwords.js';
import { prepared } from '../db/prepared.js';

/** Data access for nodes (docs/api.md#nodes) and the node naming rule. */

/** A valid container name, as the container runtime accepts it: the node's name is part of its volume and network names. */
export const NODE_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** Why a node name is refused, or null when it is valid. */
export function nodeNameProblem(name: string): string | null {
  if (NODE_NAME_PATTERN.test(name)) return null;
  return `Node name '${name}' is not a valid container name: it must start with a letter or digit and contain only letters, digits, '_', '.' and '-' (pattern [a-zA-Z0-9][a-zA-Z0-9_.-]*).`;
}

/**
 * The default node name. vantage6 uses "<organization name> - <collaboration name> Node", which contains spaces
 * and so is not a valid container name. We derive a valid one from the same parts instead: lower-cased, every run
 * of characters outside [a-z0-9_.] replaced by one '-', leading/trailing '-' trimmed, e.g.
 * "Org A" + "Study 1" → "org-a-study-1-node".
 */
export function defaultNodeName(
  organizationName: string | null,
  collaborationName: string,
  ids: { organizationId: number; collaborationId: number },
): string {
  const slug = (s: string): string =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9_.]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .replace(/-+$/, '');
  const org = slug(organizationName ?? '') || `org${ids.organizationId}`;
  const collab = slug(collaborationName) || `collab${ids.collaborationId}`;
  return `${org}-${collab}-node`;
}

const nodeById = prepared((db, id: number) => db.selectFrom('node').selectAll().where('id', '=', id));

/** A node by id (prepared: every request of a node reads it). */
export async function findNode(db: Kysely<Database>, id: number): Promise<NodeRow | undefined> {
  return (await nodeById(db, id))[0];
}

/** The node an organization has in a collaboration (other than `exceptId`), if any. */
export async function nodeOfOrganizationIn(
  db: Kysely<Database>,
  organizationId: number,
  collaborationId: number,
  exceptId?: number,
): Promise<number | undefined> {
  let q = db
    .selectFrom('node')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('collaboration_id', '=', collaborationId);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst())?.id;
}

/** The message for a second node of one organization in one collaboration. */
export const duplicateNodeMessage = (
  organizationId: number,
  collaborationId: number,
  existingId: number,
): string =>
  `Organization ${organizationId} already has a node (id=${existingId}) in collaboration ${collaborationId}; an organization can have at most one node per collaboration.`;

/**
 * Inserts a node: an `authenticatable` row of type 'node' first, whose id becomes the node id, then the node with
 * `apiKeyHash`. Call it within a transaction. Returns the node id.
 */
export async function insertNode(
  trx: Kysely<Database>,
  values: { name: string; organizationId: number; collaborationId: number; apiKeyHash: string },
): Promise<number> {
  const auth = await trx
    .insertInto('authenticatable')
    .values({ type: 'node' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('node')
    .values({
      id: auth.id,
      name: values.name,
      api_key_hash: values.apiKeyHash,
      organization_id: values.organizationId,
      collaboration_id: values.collaborationId,
      ip: null,
      status: null,
      last_seen: null,
    })
    .execute();
  return auth.id;
}

/**
 * Registers a node: an `authenticatable` row of type 'node' first, whose id becomes the node id, then the node
 * with the hash of a fresh API key. Returns the id and the plain key (shown to the caller this once).
 */
export async function createNode(
  db: Kysely<Database>,
  values: { name: string; organizationId: number; collaborationId: number },
): Promise<{ id: number; apiKey: string }> {
  const apiKey = newApiKey();
  const id = await db
    .transaction()
    .execute((trx) => insertNode(trx, { ...values, apiKeyHash: hashApiKey(apiKey) }));
  return { id, apiKey };
}

export async function updateNode(
  db: Kysely<Database>,
  id: number,
  values: Partial<Pick<NodeRow, 'name' | 'organization_id' | 'collaboration_id' | 'ip'>>,
): Promise<void> {
  if (Object.keys(values).length === 0) return;
  await db.updateTable('node').set(values).where('id', '=', id).execute();
}

/** Gives a node a fresh API key, stored only as its hash; returns the plain key. */
export async function regenerateApiKey(db: Kysely<Database>, id: number): Promise<string> {
  const apiKey = newApiKey();
  await db
    .updateTable('node')
    .set({ api_key_hash: hashApiKey(apiKey) })
    .where('id', '=', id)
    .execute();
  return apiKey;
}

/** Deletes a node with its configuration entries, its online history and its `authenticatable` row. */
export async function deleteNode(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('node_config').where('node_id', '=', id).execute();
    await trx.deleteFrom('node_online_period').where('node_id', '=', id).execute();
    await trx.deleteFrom('node').where('id', '=', id).execute();
    await trx.deleteFrom('authenticatable').where('id', '=', id).where('type', '=', 'node').execute();
  });
}

/** Node rows by id, each with whether it has configuration entries (see {@link configsOfNodes}). */
export const nodeRows = rowsQuery((db, ids) =>
  db
    .selectFrom('node')
    .select(['id', 'name', 'ip', 'status', 'last_seen', 'organization_id', 'collaboration_id'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('node_config')
            .select('node_config.id')
            .whereRef('node_config.node_id', '=', 'node.id'),
        )
        .as('has_config'),
    )
    .where('node.id', 'in', ids),
);

/** The nodes of a collaboration with their organizations. */
export async function nodesOfCollaboration(db: Kysely<Database>, collaborationId: number) {
  return db
    .selectFrom('node')
    .select(['id', 'organization_id'])
    .where('collaboration_id', '=', collaborationId)
    .orderBy('id')
    .execute();
}

/** The configuration entries of these nodes, in entry order. */
export async function configsOfNodes(db: Kysely<Database>, nodeIds: readonly number[]) {
  return db
    .selectFrom('node_config')
    .select(['node_id', 'id', 'key', 'value'])
    .where('node_id', 'in', nodeIds)
    .orderBy('id')
    .execute();
}

/** The filters of `GET /node`; `name` is an SQL LIKE pattern, the times are in the stored form. */
export interface NodeFilter {
  organization_id?: number | undefined;
  collaboration_id?: number | undefined;
  status?: string | undefined;
  ip?: string | undefined;
  name?: string | undefined;
  last_seen_from?: string | undefined;
  last_seen_till?: string | undefined;
}

type NodeListArgs = NodeFilter & {
  scope?: number | undefined;
  /** With `scope`: the nodes of these collaborations too; alone: only those ([-1] when none). */
  scope_collaborations?: readonly number[] | undefined;
};

const nodeListing = preparedListing((db, f: NodeListArgs) => {
  let ids = db.selectFrom('node').select('node.id as id').orderBy('node.id');
  const { scope, scope_collaborations: collaborations } = f;
  if (collaborations !== undefined)
    ids = ids.where((eb) =>
      eb.or([
        eb('node.collaboration_id', 'in', collaborations),
        ...(scope !== undefined ? [eb('node.organization_id', '=', scope)] : []),
      ]),
    );
  else if (scope !== undefined) ids = ids.where('node.organization_id', '=', scope);
  if (f.organization_id !== undefined) ids = ids.where('node.organization_id', '=', f.organization_id);
  if (f.collaboration_id !== undefined) ids = ids.where('node.collaboration_id', '=', f.collaboration_id);
  if (f.status !== undefined) ids = ids.where('node.status', '=', f.status);
  if (f.ip !== undefined) ids = ids.where('node.ip', '=', f.ip);
  if (f.name !== undefined) ids = ids.where('node.name', 'like', f.name);
  if (f.last_seen_from !== undefined) ids = ids.where('node.last_seen', '>=', f.last_seen_from);
  if (f.last_seen_till !== undefined) ids = ids.where('node.last_seen', '<=', f.last_seen_till);
  return ids;
});

/**
 * The ids of the nodes matching `filter`, ascending, among those of organization `scope` (all when null) or,
 * given a view (auth/scope.ts), those it takes in: its organization's and its collaborations'.
 */
export function nodeIds(
  db: Kysely<Database>,
  scope: number | null | { organizationId?: number; collaborationIds?: readonly number[] },
  filter: NodeFilter = {},
): PreparedListing {
  const view = typeof scope === 'object' && scope !== null ? scope : undefined;
  // A view taking in nothing matches nothing.
  const cols =
    view && view.organizationId === undefined ? (view.collaborationIds ?? []) : view?.collaborationIds;
  return nodeListing(db, {
    scope: view ? view.organizationId : typeof scope === 'number' ? scope : undefined,
    // The ids are positive: -1 stands for "no collaboration", so an empty list matches nothing.
    scope_collaborations: cols === undefined ? undefined : cols.length ? cols : [-1],
    organization_id: filter.organization_id,
    collaboration_id: filter.collaboration_id,
    status: filter.status,
    ip: filter.ip,
    name: filter.name,
    last_seen_from: filter.last_seen_from,
    last_seen_till: filter.last_seen_till,
  });
}

/** Replaces the stored configuration rows of a node. */
export async function replaceNodeConfig(
  db: Kysely<Database>,
  nodeId: number,
  rows: { key: string; value: string }[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('node_config').where('node_id', '=', nodeId).execute();
    if (rows.length > 0)
      await trx
        .insertInto('node_config')
        .values(rows.map((r) => ({ node_id: nodeId, key: r.key, value: r.value })))
        .execute();
  });
}
