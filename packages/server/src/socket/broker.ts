import type { FastifyBaseLogger } from 'fastify';
import { ConfigError } from '@federa/common';
import type { ServerConfig } from '../config/schema.js';
import type { DialectName } from '../db/uri.js';
import type { SocketBroker } from '../broker/socket-broker.js';
import { BrokerUriError, parseRedisUri, RedisSocketBroker } from '../broker/redis-socket-broker.js';

export interface CreateSocketBrokerOptions {
  /** The configuration file, to name it in errors. */
  configFile: string;
  /** The database dialect of the configuration: several instances need one shared PostgreSQL database. */
  dialect: DialectName;
  log: FastifyBaseLogger;
}

/**
 * The message broker of the configuration's `message_broker` key, or null when none is configured (one instance).
 * Not yet connected: call `connect()`, then `install(io)` before sockets arrive.
 *
 * @throws ConfigError when the URI is malformed, or when the database is SQLite (a file of one machine cannot be
 *   shared by several instances).
 */
export function createSocketBroker(
  config: ServerConfig,
  options: CreateSocketBrokerOptions,
): SocketBroker | null {
  const uri = config.message_broker;
  if (!uri) return null;
  if (options.dialect === 'sqlite')
    throw new ConfigError(
      options.configFile,
      'several instances need one shared PostgreSQL database, and uri is SQLite; use a postgresql:// uri or remove message_broker (see docs/scaling.md)',
      'message_broker',
    );
  try {
    return new RedisSocketBroker(parseRedisUri(uri), { log: options.log });
  } catch (error) {
    if (error instanceof BrokerUriError)
      throw new ConfigError(options.configFile, error.message, 'message_broker');
    throw error;
  }
}

/** Why `rabbitmq_uri` of a vantage6 configuration is not used (logged once at start). */
export const RABBITMQ_NOT_USED_MESSAGE =
  'rabbitmq_uri is ignored: vantage6 shares socket events as Python pickles over RabbitMQ (a bus TypeScript instances cannot join) and no maintained socket.io adapter for RabbitMQ exists; Federa instances share events through Redis, set message_broker: redis://host:6379 (see docs/scaling.md)';
