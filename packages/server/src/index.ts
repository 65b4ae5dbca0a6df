/** The public entry of `@federa/server`: what the CLI and other packages use. */
export { buildApp, MissingPolicyError, type App } from './app.js';
export { createContext, type ContextOptions } from './create-context.js';
export { startServer, serverDataDir, type ServerHandle, type StartServerOptions } from './server.js';
export { loadServerConfig, parseServerConfig, type LoadedServerConfig } from './config/load.js';
export { ServerConfigSchema, type ServerConfig } from './config/schema.js';
export type { AppContext, EventBus } from './context.js';
export type { Mailer, MailMessage } from './mail/mailer.js';
export { SmtpMailer, createMailer, type SmtpConfig } from './mail/smtp-mailer.js';
export { SocketServer, type SocketServerOptions } from './socket/index.js';
export { createServerLogger, pinoLevel, type ServerLogger } from './logging.js';
export { ERROR_CODES, ApiError, type ErrorCode } from './errors.js';
export { SERVER_VERSION } from './version.js';
export { EXIT_CODES, type ExitReason } from './bin/exit-codes.js';
// What the test support (@federa/testing) writes straight into a server's database, and reads of its state.
export { openSession } from './auth/sessions.js';
export { nextRunId } from './repositories/task/rows.js';
export { hashApiKey, newApiKey } from './auth/passwords.js';
export { RULES, type RuleKey } from './auth/rules.js';
export { formatStored, nowStored } from './http/datetime.js';
export { presenceRoom } from './socket/index.js';
export { ServerMetrics } from './metrics/server-metrics.js';
