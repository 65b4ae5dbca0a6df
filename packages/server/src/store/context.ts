import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { StoreUserRow } from '../db/store-schema.js';
import type { StoreRole } from './roles.js';
import type { CatalogueCache } from './catalogue-cache.js';
import type { CatalogueListener } from './catalogue-listener.js';

/** Who the server behind a request says the caller is (`POST /token/user/validate` of 4.x, or in-process). */
export interface ServerIdentity {
  /** The server's URL, or {@link LOCAL_SERVER} for the server the store lives in. */
  server_url: string;
  user_id: number;
  username: string;
  email: string | null;
  organization_id: number | null;
}

/** The caller of a store route: the store's record of them and the roles they hold in this store. */
export interface StoreCaller {
  user: StoreUserRow;
  roles: ReadonlySet<StoreRole>;
  identity: ServerIdentity;
}

/** The name the store gives the server it lives in. */
export const LOCAL_SERVER = 'local';

/** Resolves who calls; throws an ApiError when the token is missing or refused or the server cannot be reached. */
export type IdentityResolver = (request: FastifyRequest) => Promise<ServerIdentity>;

/** A user named by the configuration as a store manager: they hold every role. */
export interface ConfiguredManager {
  server_url: string;
  username: string;
}

/** Records store events in an audit log (docs/audit.md); the store inside a server uses the server's. */
export interface StoreAuditSink {
  record(event: string, fields: Readonly<Record<string, unknown>>): Promise<unknown>;
}

/** Everything the store's routes need, inside a server or in a process of its own. */
export interface StoreContext {
  db: Kysely<Database>;
  identify: IdentityResolver;
  managers: readonly ConfiguredManager[];
  audit: StoreAuditSink | null;
  log: FastifyBaseLogger;
  version: string;
  /** Reads kept while the database is unchanged (catalogue-cache.ts); absent: nothing is kept. */
  cache?: CatalogueCache;
  /** PostgreSQL: the catalogue's notifications the cache listens to; closed with the routes. */
  listener?: CatalogueListener;
}
