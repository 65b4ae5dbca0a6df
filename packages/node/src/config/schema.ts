/**
 * The node configuration file, one environment (docs/node.md#configuration). Validated at start with `validateConfig`,
 * which names the key and the file of the first problem.
 */
import { Type, type Static } from '@sinclair/typebox';
import { TracingConfigSchema } from '@federa/common';

import { OutputPolicySchema } from './output-policy-schema.js';

export const DATABASE_TYPES = ['csv', 'parquet', 'sql', 'sparql', 'omop', 'excel', 'other'] as const;
export type DatabaseType = (typeof DATABASE_TYPES)[number];

const Label = Type.String({ minLength: 1, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' });

const DatabaseItem = Type.Object(
  {
    label: Label,
    uri: Type.String({ minLength: 1 }),
    type: Type.Optional(Type.Union(DATABASE_TYPES.map((t) => Type.Literal(t)))),
  },
  { additionalProperties: false },
);

const StringMap = Type.Record(Type.String(), Type.String());
const ScalarMap = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));
const IdOrName = Type.Union([Type.Integer(), Type.String()]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const LogLevel = Type.Union(
  [
    'DEBUG',
    'INFO',
    'WARNING',
    'WARN',
    'ERROR',
    'CRITICAL',
    'debug',
    'info',
    'warning',
    'warn',
    'error',
    'critical',
  ].map((l) => Type.Literal(l)),
);

export const NodeConfigSchema = Type.Object(
  {
    api_key: Type.String({ minLength: 1 }),
    server_url: Type.String({ minLength: 1, pattern: '^https?://[^/]+/?$' }),
    /** Server port; null or '' leaves it out of the URLs. */
    port: Type.Optional(
      Nullable(
        Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.String({ pattern: '^[0-9]*$' })]),
      ),
    ),
    api_path: Type.Optional(Type.String({ pattern: '^(/.*)?$' })),
    task_dir: Type.Optional(Nullable(Type.String())),
    databases: Type.Optional(
      Nullable(Type.Union([Type.Record(Label, Type.String({ minLength: 1 })), Type.Array(DatabaseItem)])),
    ),
    encryption: Type.Optional(
      Type.Object(
        {
          enabled: Type.Boolean(),
          private_key: Type.Optional(Nullable(Type.String())),
        },
        { additionalProperties: false },
      ),
    ),
    allowed_images: Type.Optional(Nullable(Type.Array(Type.String()))),
    policies: Type.Optional(
      Nullable(
        Type.Object(
          {
            allowed_algorithms: Type.Optional(
              Nullable(Type.Union([Type.String(), Type.Array(Type.String())])),
            ),
            allowed_users: Type.Optional(Nullable(Type.Array(Type.Integer()))),
            allowed_organizations: Type.Optional(Nullable(Type.Array(IdOrName))),
            /** What may leave the node (docs/output-control.md). */
            output: Type.Optional(Nullable(OutputPolicySchema)),
            allowed_algorithm_stores: Type.Optional(
              Nullable(Type.Union([Type.String(), Type.Array(Type.String())])),
            ),
            allow_either_whitelist_or_store: Type.Optional(Nullable(Type.Boolean())),
            allowed_functions: Type.Optional(Nullable(Type.Array(Type.String()))),
            /** Whether the server may learn the column names of the node's file databases (docs/store.md). */
            share_column_names: Type.Optional(Nullable(Type.Boolean())),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    docker_registries: Type.Optional(
      Nullable(
        Type.Array(
          Type.Object(
            { registry: Type.String({ minLength: 1 }), username: Type.String(), password: Type.String() },
            { additionalProperties: false },
          ),
        ),
      ),
    ),
    /** No registry is reachable: images are only looked up locally, never pulled (docs/node.md). */
    air_gapped: Type.Optional(Nullable(Type.Boolean())),
    algorithm_env: Type.Optional(Nullable(ScalarMap)),
    container_services: Type.Optional(Nullable(StringMap)),
    docker_services: Type.Optional(Nullable(StringMap)),
    vpn_subnet: Type.Optional(Nullable(Type.String())),
    alpine: Type.Optional(Nullable(Type.String())),
    image: Type.Optional(Nullable(Type.String())),
    images: Type.Optional(Nullable(StringMap)),
    algorithm_device_requests: Type.Optional(Nullable(Type.Object({ gpu: Type.Optional(Type.Boolean()) }))),
    'ssh-tunnels': Type.Optional(Nullable(Type.Array(Type.Unknown()))),
    whitelist: Type.Optional(Nullable(Type.Unknown())),
    share_config: Type.Optional(Type.Boolean()),
    share_logs: Type.Optional(Type.Boolean()),
    /** Outputs of at least this many MiB are streamed to the server's result store (docs/large-results.md). */
    large_result_mb: Type.Optional(Type.Number({ minimum: 0 })),
    debug: Type.Optional(Nullable(Type.Unknown())),
    logging: Type.Optional(
      Nullable(
        Type.Object(
          {
            level: Type.Optional(LogLevel),
            file: Type.Optional(Nullable(Type.String())),
            use_console: Type.Optional(Type.Boolean()),
            backup_count: Type.Optional(Type.Integer({ minimum: 1 })),
            max_size: Type.Optional(Type.Integer({ minimum: 17 })),
            format: Type.Optional(Type.String()),
            datefmt: Type.Optional(Nullable(Type.String())),
            loggers: Type.Optional(Type.Array(Type.Object({ name: Type.String(), level: LogLevel }))),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    directories: Type.Optional(
      Nullable(
        Type.Object(
          { log: Type.Optional(Nullable(Type.String())), data: Type.Optional(Nullable(Type.String())) },
          { additionalProperties: false },
        ),
      ),
    ),
    /** Federa: port of the local proxy (default 8080; env PROXY_SERVER_PORT wins; 0 = any free port). */
    proxy_port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    /** Federa: the container engine of the algorithms, `docker` (default) or rootless `podman` (docs/deploy-node.md). */
    container_runtime: Type.Optional(Type.Union([Type.Literal('docker'), Type.Literal('podman')])),
    /** Federa: Podman's API socket (default `$XDG_RUNTIME_DIR/podman/podman.sock`); only with `podman`. */
    podman_socket: Type.Optional(Type.String({ minLength: 1, pattern: '^/' })),
    /** Federa: Prometheus metrics (docs/observability.md); served only when `port` is given. */
    metrics: Type.Optional(
      Type.Object(
        {
          port: Type.Integer({ minimum: 0, maximum: 65535 }),
          ip: Type.Optional(Type.String({ minLength: 1 })),
          path: Type.Optional(Type.String({ pattern: '^(/[A-Za-z0-9_.~-]+)+$' })),
          token: Type.Optional(Type.String({ minLength: 16 })),
        },
        { additionalProperties: false },
      ),
    ),
    /** Federa: OpenTelemetry traces sent by OTLP/HTTP (docs/observability.md#traces); absent: no tracing. */
    tracing: Type.Optional(TracingConfigSchema),
    /** Federa: name prefix of the node's Docker objects (default `federa`). */
    docker_prefix: Type.Optional(Type.String({ pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]*$' })),
  },
  { additionalProperties: false },
);

export type RawNodeConfig = Static<typeof NodeConfigSchema>;
