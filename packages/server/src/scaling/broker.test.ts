import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ConfigError } from '@federa/common';
import { parseServerConfig } from '../config/load.js';
import {
  call,
  createTestDatabase,
  freePort,
  startTestServer,
  TcpProxy,
  type TestDatabase,
  until,
} from '@federa/testing';
import { BrokerUriError, parseRedisUri, RedisSocketBroker } from '../broker/redis-socket-broker.js';
import { createSocketBroker, RABBITMQ_NOT_USED_MESSAGE } from '../socket/broker.js';

const REDIS = new URL(process.env.FEDERA_TEST_REDIS ?? 'redis://127.0.0.1:6379');
const channel = (): string => `federa-test-${process.pid}-${randomBytes(4).toString('hex')}`;
const silent = pino({ level: 'silent' });

describe('the message_broker URI', () => {
  it('understands host, port, database, credentials, TLS and the channel', () => {
    expect(parseRedisUri('redis://redis.internal')).toEqual({
      host: 'redis.internal',
      port: 6379,
      db: 0,
      tls: false,
      channel: 'federa',
    });
    expect(parseRedisUri('rediss://app:s%40cret@10.0.0.5:6380/2?channel=fed-1')).toEqual({
      host: '10.0.0.5',
      port: 6380,
      db: 2,
      username: 'app',
      password: 's@cret',
      tls: true,
      channel: 'fed-1',
    });
  });

  it('describes the broker without its password', () => {
    const broker = new RedisSocketBroker(parseRedisUri('redis://:topsecret@10.0.0.5:6380?channel=x'), {
      log: silent,
    });
    expect(broker.describe()).toBe('redis://10.0.0.5:6380 (channel x)');
  });

  it.each([
    ['amqp://guest:guest@localhost:5672/', /unsupported scheme 'amqp'/],
    ['redis://host/abc', /database after the host must be a number/],
    ['redis://host?prefix=x', /unknown parameter 'prefix'/],
    ['redis://host?channel=a%20b', /channel may hold/],
  ])('refuses %s', (uri, message) => {
    expect(() => parseRedisUri(uri)).toThrow(BrokerUriError);
    expect(() => parseRedisUri(uri)).toThrow(message);
  });

  it('is refused with a SQLite database (several instances need one shared PostgreSQL), naming the key', () => {
    const config = parseServerConfig(
      {
        uri: 'sqlite:///x.sqlite',
        root_user: { email: 'r@example.org' },
        message_broker: 'redis://localhost:6379',
      },
      'server.yaml',
    );
    const make = () =>
      createSocketBroker(config, { configFile: 'server.yaml', dialect: 'sqlite', log: silent });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(/server\.yaml: key 'message_broker': several instances need one shared PostgreSQL/);
  });
});

describe('a server with a message broker', () => {
  let dir: string;
  let db: TestDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'federa-broker-'));
    db = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not start when the broker cannot be reached, and says which one', async () => {
    const port = await freePort();
    await expect(
      startTestServer({
        dir,
        name: 'unreachable',
        config: { uri: db.uri, message_broker: `redis://127.0.0.1:${port}` },
      }),
    ).rejects.toThrow(`the message broker redis://127.0.0.1:${port} (channel federa) cannot be reached`);
  });

  it('refuses a SQLite database at start', async () => {
    await expect(
      startTestServer({
        dir,
        name: 'sqlite',
        config: { uri: 'sqlite:///x.sqlite', message_broker: 'redis://127.0.0.1:6379' },
      }),
    ).rejects.toThrow(ConfigError);
  });

  it('reports the broker unreachable in /health while Redis is away, and recovers by itself', async () => {
    const proxy = await TcpProxy.start(REDIS.hostname, Number(REDIS.port || 6379));
    const port = proxy.port;
    const s = await startTestServer({
      dir,
      name: 'outage',
      config: {
        uri: db.uri,
        message_broker: `redis://127.0.0.1:${port}?channel=${channel()}`,
      },
    });
    let restarted: TcpProxy | null = null;
    try {
      const api = s.handle.apiUrl;
      expect((await call(api, 'GET', '/health', { token: s.rootToken })).body).toMatchObject({
        database: true,
        broker: true,
      });
      await proxy.close();
      await until(
        'broker false',
        async () => (await call(api, 'GET', '/health', { token: s.rootToken })).body.broker,
        (b) => b === false,
      );
      // The log line may follow the first failed PING by a moment.
      await until(
        'broker.unreachable logged',
        () => s.logs.filter((l) => l.event === 'broker.unreachable').length,
        (n) => n > 0,
      );
      expect(s.logs.filter((l) => l.event === 'broker.unreachable')).toHaveLength(1);
      // The REST API keeps working meanwhile.
      expect((await call(api, 'GET', '/organization', { token: s.rootToken })).status).toBe(200);
      restarted = await TcpProxy.start(REDIS.hostname, Number(REDIS.port || 6379), port);
      await until(
        'broker true',
        async () => (await call(api, 'GET', '/health', { token: s.rootToken })).body.broker,
        (b) => b === true,
        15_000,
      );
      expect(s.logs.some((l) => l.event === 'broker.reconnected')).toBe(true);
      expect(restarted.connections).toBe(2);
      // Closing the server closes its Redis connections (nothing keeps the process alive).
      await s.handle.close();
      await until(
        'the Redis connections to close',
        () => restarted?.connections,
        (n) => n === 0,
        3000,
      );
    } finally {
      await s.handle.close();
      await restarted?.close();
    }
  }, 30_000);
});

describe('closing a server while its broker is away', () => {
  let dir: string;
  let db: TestDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'federa-broker-close-'));
    db = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('closes promptly, without an error', async () => {
    const proxy = await TcpProxy.start(REDIS.hostname, Number(REDIS.port || 6379));
    const s = await startTestServer({
      dir,
      name: 'away',
      config: {
        uri: db.uri,
        message_broker: `redis://127.0.0.1:${proxy.port}?channel=${channel()}`,
      },
    });
    await proxy.close();
    await until(
      'broker false',
      async () => (await call(s.handle.apiUrl, 'GET', '/health', { token: s.rootToken })).body.broker,
      (b) => b === false,
    );
    const started = Date.now();
    await s.handle.close();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(s.logs.filter((l) => l.level === 'error')).toEqual([]);
  });
});

describe('rabbitmq_uri of a vantage6 configuration', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'federa-rabbit-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is accepted and logged once as not used, with the reason; /health shows no broker and the mail server without credentials', async () => {
    const s = await startTestServer({
      dir,
      name: 'v6',
      config: {
        uri: 'sqlite:///v6.sqlite',
        rabbitmq_uri: 'amqp://guest:guest@127.0.0.1:5672/',
        smtp: { server: 'mail.example.org', port: 587, username: 'mailer', password: 'mail-secret-pw' },
      },
    });
    try {
      const lines = s.logs.filter((l) => l.event === 'broker.rabbitmq_unused');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 'warn', msg: RABBITMQ_NOT_USED_MESSAGE });
      expect(JSON.stringify(s.logs)).not.toContain('guest:guest');
      const health = await call(s.handle.apiUrl, 'GET', '/health', { token: s.rootToken });
      expect(health.body).toMatchObject({
        database: true,
        dialect: 'sqlite',
        broker: null,
        mail: 'smtp://mail.example.org:587 (starttls)',
      });
      expect(JSON.stringify(health.body)).not.toMatch(/mailer|mail-secret-pw/);
    } finally {
      await s.handle.close();
    }
  });
});
