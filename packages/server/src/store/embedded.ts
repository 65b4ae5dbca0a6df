import type { AppContext } from '../context.js';
import { identityResolver, localIdentity } from './identity.js';
import { LOCAL_SERVER, type StoreContext } from './context.js';
import { CatalogueCache } from './catalogue-cache.js';
import { CatalogueListener } from './catalogue-listener.js';
import { catalogueVersion } from '../repositories/store.js';

/**
 * The store inside a server: its tables are in the server's database, its users are the server's (checked
 * in-process) and those of the servers the configuration trusts, its events go to the server's audit log.
 */
export function embeddedStore(ctx: AppContext): StoreContext {
  const config = ctx.config.algorithm_store;
  const target = ctx.dbh.target;
  const listener =
    target.dialect === 'postgres' ? new CatalogueListener(target.location, ctx.log) : undefined;
  void listener?.start();
  return {
    db: ctx.dbh.db,
    identify: identityResolver({
      local: localIdentity(ctx),
      ownUrls: config.own_urls,
      trusted: config.trusted_servers,
      timeoutMs: config.timeout_ms,
    }),
    managers: config.managers.map((username) => ({ server_url: LOCAL_SERVER, username })),
    audit: ctx.audit,
    log: ctx.log,
    version: ctx.version,
    cache: new CatalogueCache(ctx.dbh.changes, () => catalogueVersion(ctx.dbh.db), { signal: listener }),
    ...(listener ? { listener } : {}),
  };
}
