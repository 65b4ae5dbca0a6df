/**
 * Checks a configuration before anything starts. A problem is a ConfigError naming the key, the file and what
 * was expected.
 *
 * Two layers: the keys the CLI itself reads to start a container, then the full schema of the server or node
 * package (`parseServerConfig` of @federa/server, `normaliseNodeConfig` of @federa/node), the same checks the
 * daemon makes when it starts.
 */
import { Type } from '@sinclair/typebox';
import { normaliseNodeConfig } from '@federa/node/config';
import { parseServerConfig } from '@federa/server/config';
import { readEnvironment, validateConfig } from '@federa/common';

const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const OptionalString = Type.Optional(Type.Union([Type.String(), Type.Null()]));

/** The server keys `vserver start` reads. */
const ServerStartKeys = Type.Object(
  {
    ip: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Port),
    api_path: Type.Optional(Type.String({ pattern: '^(/[A-Za-z0-9_.~-]+)*$' })),
    uri: Type.Optional(Type.String({ minLength: 1 })),
    image: OptionalString,
    images: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: true },
);

/** The node keys `vnode start` reads. */
const NodeStartKeys = Type.Object(
  {
    api_key: Type.String({ minLength: 1 }),
    server_url: Type.String({ minLength: 1, pattern: '^https?://[^/]+/?$' }),
    port: Type.Optional(Type.Union([Port, Type.Null(), Type.String({ pattern: '^[0-9]*$' })])),
    api_path: Type.Optional(Type.String({ pattern: '^(/.*)?$' })),
    databases: Type.Optional(
      Type.Union([
        Type.Null(),
        Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String({ minLength: 1 })),
        Type.Array(
          Type.Object(
            {
              label: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
              uri: Type.String({ minLength: 1 }),
              type: Type.Optional(Type.String()),
            },
            { additionalProperties: true },
          ),
        ),
      ]),
    ),
    encryption: Type.Optional(
      Type.Object({ enabled: Type.Boolean(), private_key: OptionalString }, { additionalProperties: true }),
    ),
    image: OptionalString,
    images: Type.Optional(Type.Union([Type.Null(), Type.Record(Type.String(), Type.String())])),
  },
  { additionalProperties: true },
);

/**
 * Reads and checks one environment of a server configuration. `overrides` are the environment variables the
 * container will get (e.g. the database URI inside the container).
 */
export function checkServerConfig(
  file: string,
  environment: string,
  overrides: NodeJS.ProcessEnv = {},
): Record<string, unknown> {
  const raw = readEnvironment(file, environment);
  validateConfig(ServerStartKeys, raw, file);
  parseServerConfig(raw, file, overrides);
  return raw;
}

/** Reads and checks one environment of a node configuration. */
export function checkNodeConfig(
  file: string,
  environment: string,
  name: string,
  env: Readonly<Record<string, string | undefined>> = {},
): Record<string, unknown> {
  const raw = readEnvironment(file, environment);
  validateConfig(NodeStartKeys, raw, file);
  normaliseNodeConfig(raw, { file, environment, name, env });
  return raw;
}
