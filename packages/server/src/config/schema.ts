import { Type, type Static } from '@sinclair/typebox';
import { TracingConfigSchema } from '@federa/common';

/**
 * The server configuration: one environment of the YAML file of docs/server-configuration.md, plus Federa's own keys.
 * Every key is documented in `docs/server-configuration.md`.
 */
export const ServerConfigSchema = Type.Object(
  {
    description: Type.Optional(Type.String()),
    /** `test` makes access tokens live one day (as vantage6). */
    type: Type.Optional(Type.String()),
    ip: Type.String({ default: '0.0.0.0' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 5000 }),
    api_path: Type.String({ default: '/api', pattern: '^(/[A-Za-z0-9_.~-]+)*$' }),
    /** Database URI: `sqlite:///relative.sqlite`, `sqlite:////absolute.sqlite`, `sqlite://:memory:`, `postgresql://…`. */
    uri: Type.String({ default: 'sqlite:///default.sqlite', minLength: 1 }),
    /** Connection pool settings (PostgreSQL). */
    database: Type.Object(
      {
        /** A query without an answer after this long fails (503) instead of hanging; its connection is closed. */
        query_timeout_ms: Type.Integer({ minimum: 100, default: 30_000 }),
        /** Opening a connection may take this long before the request answers 503. */
        connect_timeout_ms: Type.Integer({ minimum: 100, default: 10_000 }),
        /** `/health/fix` replaces a broken pool at most once per this many seconds. */
        fix_interval_seconds: Type.Integer({ minimum: 1, default: 30 }),
        /** The `Retry-After` (seconds) of a 503 answered while the database is unreachable. */
        retry_after_seconds: Type.Integer({ minimum: 1, default: 5 }),
        /**
         * PostgreSQL: keep the queries run again and again prepared on each connection; false behind a pooler
         * in transaction mode (PgBouncer before 1.21).
         */
        prepared_statements: Type.Boolean({ default: true }),
      },
      { default: {}, additionalProperties: false },
    ),
    allow_drop_all: Type.Boolean({ default: false }),
    jwt_secret_key: Type.Optional(Type.String({ minLength: 16 })),
    token_expires_hours: Type.Number({ minimum: 0.5, default: 6 }),
    refresh_token_expires_hours: Type.Number({ minimum: 1, default: 48 }),
    /**
     * Absolute lifetime of a user's session (one login): refreshing never extends it past this (docs/security.md).
     */
    session_max_hours: Type.Number({ minimum: 1, default: 168 }),
    /** Absolute lifetime of a node's session; the Federa node then logs in again with its API key. */
    node_session_max_hours: Type.Number({ minimum: 1, default: 720 }),
    /**
     * Accept the login's refresh token again as long as the session has never used a rotated one: vantage6
     * 3.3–3.7 clients and nodes keep the refresh token of their login (docs/security.md). false: every refresh
     * token is single-use for every client.
     */
    legacy_refresh_reuse: Type.Boolean({ default: true }),
    /** Longest life (`exp`) of an algorithm container's token: the longest run a node may do. */
    container_token_max_hours: Type.Number({ minimum: 1, default: 168 }),
    /** A container token stops working this long after its run has finished (or at once when deleted). */
    container_token_grace_minutes: Type.Number({ minimum: 0, default: 10 }),
    /**
     * Every this many seconds each open socket is checked again: session still live, user or node still there,
     * rooms as the user's rules are now (changes made through this instance apply at once).
     */
    socket_recheck_seconds: Type.Number({ minimum: 1, default: 60 }),
    /**
     * Socket handshakes served at the same time (token checked, rooms joined, marked online); a handshake beyond
     * them is refused at once with a time to come back (docs/socket-protocol.md#admission).
     */
    socket_max_pending: Type.Integer({ minimum: 1, default: 100 }),
    /** bcrypt cost factor for user passwords. */
    bcrypt_rounds: Type.Integer({ minimum: 4, maximum: 15, default: 12 }),
    root_user: Type.Object(
      {
        username: Type.String({ minLength: 1, default: 'root' }),
        email: Type.String({ minLength: 3, pattern: '^[^@\\s]+@[^@\\s]+$' }),
        password: Type.Optional(Type.String({ minLength: 8 })),
        organization: Type.String({ minLength: 1, default: 'root' }),
      },
      { additionalProperties: false },
    ),
    password_policy: Type.Object(
      {
        /** Failed password checks of an account from one address that lock it for that address. */
        max_failed_attempts: Type.Integer({ minimum: 1, default: 5 }),
        inactivation_minutes: Type.Number({ minimum: 0, default: 15 }),
        /** Failed checks of an account from all addresses after which unknown addresses are slowed (Federa). */
        account_slow_after_failures: Type.Integer({ minimum: 1, default: 100 }),
        /** While slowed: one check per this many seconds from an address the account was not used from. */
        account_slow_seconds: Type.Number({ minimum: 0, default: 30 }),
        /** Failed logins allowed from one address within `address_window_minutes` (Federa). */
        max_failed_attempts_per_address: Type.Integer({ minimum: 1, default: 20 }),
        address_window_minutes: Type.Number({ minimum: 0, default: 15 }),
        /** At most one password reset mail per account per this many minutes (`POST /recover/lost`, Federa). */
        reset_mail_interval_minutes: Type.Number({ minimum: 0, default: 5 }),
      },
      { default: {}, additionalProperties: false },
    ),
    smtp: Type.Optional(
      Type.Object(
        {
          server: Type.String({ default: 'localhost' }),
          port: Type.Integer({ minimum: 1, maximum: 65535, default: 1025 }),
          username: Type.Optional(Type.String()),
          password: Type.Optional(Type.String()),
          MAIL_USE_TLS: Type.Boolean({ default: true }),
          MAIL_USE_SSL: Type.Boolean({ default: false }),
          sender: Type.Optional(Type.String()),
          /** PEM file of a CA to trust for the mail server's certificate (self-signed servers). */
          ca_file: Type.Optional(Type.String()),
          email_token_validity_minutes: Type.Number({ minimum: 1, default: 60 }),
        },
        { additionalProperties: false },
      ),
    ),
    support_email: Type.Optional(Type.String()),
    /** Message broker for several instances: `redis://host:port` (socket.io Redis adapter). */
    message_broker: Type.Optional(Type.String({ pattern: '^rediss?://' })),
    /** Accepted for compatibility with vantage6 configurations; see docs/scaling.md. */
    rabbitmq_uri: Type.Optional(Type.String()),
    /** vantage6's EduVPN portal settings: accepted, not used (Federa runs its own VPN: the `vpn` key). */
    vpn_server: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** Federa's own VPN between algorithm containers (docs/vpn.md); absent = no VPN (`GET /vpn` answers 501). */
    vpn: Type.Optional(
      Type.Object(
        {
          /** The address nodes' VPN clients connect to (this server's public name or IP). */
          host: Type.String({ minLength: 1 }),
          port: Type.Integer({ minimum: 1, maximum: 65535, default: 1194 }),
          proto: Type.Union([Type.Literal('udp'), Type.Literal('tcp')], { default: 'udp' }),
          subnet: Type.String({
            default: '10.76.0.0/16',
            pattern: '^\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}/\\d{1,2}$',
          }),
          /** Lifetime of a node's certificate; nodes renew when a third of it is left. */
          certificate_days: Type.Number({ exclusiveMinimum: 0, default: 30 }),
          /** Folder of the certificate authority and the OpenVPN server files (default: `<data dir>/vpn`). */
          directory: Type.Optional(Type.String({ minLength: 1 })),
          /** Run OpenVPN as a child process (local mode); false when the `federa/vpn-server` container runs it. */
          run_server: Type.Boolean({ default: true }),
        },
        { additionalProperties: false },
      ),
    ),
    logging: Type.Object(
      {
        level: Type.Union(
          [
            'DEBUG',
            'INFO',
            'WARNING',
            'ERROR',
            'CRITICAL',
            'debug',
            'info',
            'warn',
            'error',
            'fatal',
            'silent',
          ].map((l) => Type.Literal(l)),
          { default: 'INFO' },
        ),
        file: Type.Optional(Type.String()),
        use_console: Type.Boolean({ default: true }),
        backup_count: Type.Optional(Type.Integer()),
        max_size: Type.Optional(Type.Integer()),
        format: Type.Optional(Type.String()),
        datefmt: Type.Optional(Type.String()),
      },
      { default: {}, additionalProperties: true },
    ),
    /**
     * Memory (MiB) for answers of authenticated GET requests, kept until the database changes (SQLite and
     * PostgreSQL; see http/read-cache.ts). 0 turns the cache off.
     */
    response_cache_mb: Type.Number({ minimum: 0, default: 64 }),
    /**
     * The most characters (in KiB of characters) of log a node may stream for one run while it is active
     * (docs/run-logs.md); what comes beyond is replaced by one truncation note.
     */
    run_log_max_kb: Type.Integer({ minimum: 1, maximum: 65_536, default: 1024 }),
    /**
     * Origins (`https://host[:port]`) whose web pages may call the API from a browser (CORS). Empty: only pages
     * of the server's own origin. `['*']`: any page, as vantage6 did.
     */
    cors_origins: Type.Array(
      Type.String({
        pattern: '^(\\*|https?://[^/\\s]+)$',
        description: 'an origin such as https://ui.example.org',
      }),
      { default: [] },
    ),
    /** Time-outs of the HTTP server: a request whose headers or body do not arrive in time is answered 408. */
    http: Type.Object(
      {
        /** The whole request (headers and body) must have arrived within this time. */
        request_timeout_ms: Type.Integer({ minimum: 100, default: 120_000 }),
        /** The headers must have arrived within this time (at most request_timeout_ms). */
        headers_timeout_ms: Type.Integer({ minimum: 100, default: 30_000 }),
        /**
         * The upload and download of a large output (`/result/{id}/output`) have no whole-request time-out: they are
         * cut when no bytes moved for this long (docs/large-results.md).
         */
        output_idle_timeout_ms: Type.Integer({ minimum: 100, default: 60_000 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** Largest accepted request body in bytes (task creation and results: task_body_limit_bytes). */
    body_limit_bytes: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
    /** Largest body of `POST /task` and `PATCH /result/{id}` (the data of runs), and of one input or result. */
    task_body_limit_bytes: Type.Integer({ minimum: 1024, default: 64 * 1024 * 1024 }),
    /** Longest strings accepted in requests (docs/security.md, "Input limits"). */
    limits: Type.Object(
      {
        /** Names, e-mail addresses, filters: every string without a limit of its own. */
        string_chars: Type.Integer({ minimum: 16, maximum: 600, default: 255 }),
        /** Free text: descriptions and public keys. */
        text_chars: Type.Integer({ minimum: 256, default: 16_384 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /**
     * Where outputs too large for a JSON body are held (docs/large-results.md): `folder` (default `<data dir>/results`)
     * or `database`. Outputs sent inline (`PATCH /result/{id}` with `result`) stay in the database as in vantage6.
     */
    result_store: Type.Object(
      {
        type: Type.Union([Type.Literal('folder'), Type.Literal('database')], { default: 'folder' }),
        /** The folder of `type: folder` (relative: under the data directory). */
        directory: Type.Optional(Type.String({ minLength: 1 })),
        /** The largest output a node may upload, in MiB. */
        max_mb: Type.Number({ minimum: 1, default: 10_240 }),
        /** The most the store holds for the runs of one node (its organization in one collaboration), in MiB. */
        node_quota_mb: Type.Number({ minimum: 1, default: 51_200 }),
        /** The most the store holds in all, in MiB. */
        total_quota_mb: Type.Number({ minimum: 1, default: 512_000 }),
        /**
         * Whether vantage6 4.x clients, nodes and algorithms may upload inputs and outputs to `POST /v4/api/blobstream`
         * (docs/vantage6-4.md#uploads-to-blobstream). Off: `/blobstream/status` says so and they send them inline.
         */
        blob_uploads: Type.Boolean({ default: true }),
        /** An upload to `/blobstream` that no task has taken as an input this many minutes after it began is removed. */
        blob_expiry_minutes: Type.Number({ minimum: 1, default: 60 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** The web UI (docs/ui.md): served at `path` unless turned off; `directory` overrides where the built files are. */
    ui: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        path: Type.String({ default: '/', pattern: '^/([A-Za-z0-9_.~-]+/)*$' }),
        directory: Type.Optional(Type.String({ minLength: 1 })),
      },
      { default: {}, additionalProperties: false },
    ),
    /** The audit log (docs/audit.md): hash-chained files in `directory` (default `<data dir>/audit`). */
    audit: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        directory: Type.Optional(Type.String({ minLength: 1 })),
        /** A file that would grow past this many MiB is renamed and the chain goes on in a new file. */
        max_file_mb: Type.Number({ minimum: 0.01, default: 64 }),
        /** fdatasync each batch of entries before the answers that wait for them go out. */
        fsync: Type.Boolean({ default: true }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** The algorithm store inside this server (docs/store.md#running-a-store). */
    algorithm_store: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        /** Where its API is served, beside (not under) `api_path`. */
        path: Type.String({ default: '/store/api', pattern: '^(/[A-Za-z0-9_.~-]+)+$' }),
        /** Usernames of this server's users who manage the store (they hold every store role). */
        managers: Type.Array(Type.String({ minLength: 1 }), { default: ['root'] }),
        /** Other servers whose users may use this store (they send `Server-Url` and that server's token). */
        trusted_servers: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
        /** URLs at which this server is reached: a `Server-Url` naming one means this server. */
        own_urls: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
        /** How long the store waits for a server to say who a caller is. */
        timeout_ms: Type.Integer({ minimum: 100, default: 5_000 }),
      },
      { default: {}, additionalProperties: false },
    ),
    /** Prometheus metrics (docs/observability.md): served at `path` of the API's port, or of `ip:port` when set. */
    metrics: Type.Object(
      {
        enabled: Type.Boolean({ default: true }),
        path: Type.String({ default: '/metrics', pattern: '^(/[A-Za-z0-9_.~-]+)+$' }),
        /** A port of its own for the metrics (0: any free port); absent: the API's port. */
        port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
        /** The address the metrics' own port listens on. */
        ip: Type.String({ default: '127.0.0.1' }),
        /** A scrape must send `Authorization: Bearer <token>`; absent: only loopback callers are answered. */
        token: Type.Optional(Type.String({ minLength: 16 })),
      },
      { default: {}, additionalProperties: false },
    ),
    /** OpenTelemetry traces sent by OTLP/HTTP (docs/observability.md#traces); absent: no tracing. */
    tracing: Type.Optional(TracingConfigSchema),
    directories: Type.Optional(
      Type.Object({ log: Type.Optional(Type.String()), data: Type.Optional(Type.String()) }),
    ),
    image: Type.Optional(Type.String()),
    images: Type.Optional(Type.Record(Type.String(), Type.String())),
    two_factor_auth: Type.Optional(Type.Boolean()),
    debug: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export type ServerConfig = Static<typeof ServerConfigSchema>;
