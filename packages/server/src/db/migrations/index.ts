import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../uri.js';
import { initialMigration } from './0001-initial.js';
import { resultSummaryIndex } from './0002-result-summary-index.js';
import { sessionsMigration } from './0003-sessions.js';
import { memberSince } from './0004-member-since.js';
import { cancelOnFailure } from './0005-cancel-on-failure.js';
import { liveLog } from './0006-live-log.js';
import { storedResults } from './0007-stored-results.js';
import { resultChunkRun } from './0008-result-chunk-run.js';
import { lookupIndexes } from './0009-lookup-indexes.js';
import { memberOrganizationIndex } from './0010-member-organization-index.js';
import { foreignKeyIndexes } from './0011-foreign-key-indexes.js';
import { taskCount } from './0012-task-count.js';
import { runSequence } from './0013-run-sequence.js';
import { oneNodePerOrganization } from './0014-one-node-per-organization.js';
import { resetMail } from './0015-reset-mail.js';
import { deferredTaskCount } from './0016-deferred-task-count.js';
import { runLookupIndexes } from './0017-run-lookup-indexes.js';
import { taskSetVersion } from './0018-task-set-version.js';
import { resultHeldBytes } from './0019-result-held-bytes.js';
import { algorithmStore } from './0020-algorithm-store.js';
import { taskDatabases } from './0021-task-databases.js';
import { taskApi } from './0022-task-api.js';
import { studies } from './0023-studies.js';
import { storeFunctionOutput } from './0024-store-function-output.js';
import { loginFailures } from './0025-login-failures.js';
import { taskTraceparent } from './0026-task-traceparent.js';
import { storeCatalogueVersion } from './0027-store-catalogue-version.js';
import { nodeOnlineHistory } from './0028-node-online-history.js';
import { storeCatalogueNotify } from './0029-store-catalogue-notify.js';
import { nodeViewCollaboration } from './0030-node-view-collaboration.js';
import { blobs } from './0031-blob.js';

/** All migrations, in order. They run at every start on both dialects. */
export class FederaMigrations implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve({
      '0001-initial': initialMigration(this.dialect),
      '0002-result-summary-index': resultSummaryIndex,
      '0003-sessions': sessionsMigration,
      '0004-member-since': memberSince,
      '0005-cancel-on-failure': cancelOnFailure,
      '0006-live-log': liveLog,
      '0007-stored-results': storedResults(this.dialect),
      '0008-result-chunk-run': resultChunkRun,
      '0009-lookup-indexes': lookupIndexes,
      '0010-member-organization-index': memberOrganizationIndex,
      '0011-foreign-key-indexes': foreignKeyIndexes,
      '0012-task-count': taskCount(this.dialect),
      '0013-run-sequence': runSequence(this.dialect),
      '0014-one-node-per-organization': oneNodePerOrganization,
      '0015-reset-mail': resetMail,
      '0016-deferred-task-count': deferredTaskCount(this.dialect),
      '0017-run-lookup-indexes': runLookupIndexes,
      '0018-task-set-version': taskSetVersion(this.dialect),
      '0019-result-held-bytes': resultHeldBytes,
      '0020-algorithm-store': algorithmStore(this.dialect),
      '0021-task-databases': taskDatabases,
      '0022-task-api': taskApi,
      '0023-studies': studies(this.dialect),
      '0024-store-function-output': storeFunctionOutput,
      '0025-login-failures': loginFailures,
      '0026-task-traceparent': taskTraceparent,
      '0027-store-catalogue-version': storeCatalogueVersion(this.dialect),
      '0028-node-online-history': nodeOnlineHistory(this.dialect),
      '0029-store-catalogue-notify': storeCatalogueNotify(this.dialect),
      '0030-node-view-collaboration': nodeViewCollaboration,
      '0031-blob': blobs,
    });
  }
}
