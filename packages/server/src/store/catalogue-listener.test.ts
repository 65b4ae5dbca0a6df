import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, TcpProxy, until, type TestDatabase } from '@federa/testing';
import { CatalogueListener } from './catalogue-listener.js';

// The listener that lets the store answer kept pages without a query (PostgreSQL): a notification moves its tag,
// and a connection that goes silent, which no error would ever announce, is found by its probe and taken as lost,
// so the store reads the version from the database again.

let db: TestDatabase;
let proxy: TcpProxy;
const warnings: string[] = [];
const log = { info: () => undefined, warn: (f: Record<string, unknown>) => warnings.push(String(f.event)) };

beforeAll(async () => {
  db = await createTestDatabase('postgres');
  const url = new URL(db.uri);
  proxy = await TcpProxy.start(url.hostname, Number(url.port || 5432));
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await db?.drop();
});

const notify = async () => {
  const c = new pg.Client({ connectionString: db.uri });
  await c.connect();
  try {
    await c.query(`NOTIFY federa_store_catalogue`);
  } finally {
    await c.end();
  }
};

describe('the catalogue listener', () => {
  it('moves its tag at a notification, and gives none once its connection goes silent', async () => {
    const url = new URL(db.uri);
    url.host = `127.0.0.1:${proxy.port}`;
    const listener = new CatalogueListener(url.toString(), log, 60_000, 300);
    try {
      await listener.start();
      const first = listener.tag();
      expect(first).toBeDefined();
      await notify();
      await until(
        'the notification heard',
        () => listener.tag(),
        (t) => t !== first,
        5_000,
        10,
      );
      expect(listener.tag()).toBeDefined();

      expect(proxy.freeze()).toBeGreaterThan(0);
      await until(
        'the silence noticed',
        () => listener.tag(),
        (t) => t === undefined,
        5_000,
        20,
      );
      expect(warnings).toContain('store.catalogue_unheard');
    } finally {
      await listener.close();
    }
  });
});
