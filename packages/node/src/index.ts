export { startNode, type RunningNode, type StartNodeOptions } from './node.js';
export {
  loadNodeConfig,
  normaliseNodeConfig,
  DEFAULT_ENVIRONMENT,
  DEFAULT_PROXY_PORT,
  type NodeConfig,
  type DatabaseConfig,
} from './config/node-config.js';
export { NodeConfigSchema } from './config/schema.js';
export { startProxy, type ProxyOptions, type RunningProxy } from './proxy/proxy-server.js';
export { buildAlgorithmEnv, resolveDatabaseLabel } from './runs/environment.js';
export * from './runs/naming.js';
export { RunStatus, type RunStatusValue } from './runs/run-status.js';
export { WrongApiKeyError, StartupError, ServerRequestError } from './errors.js';
// The store of a node's runs, read by the system tests to see what a node kept across a restart.
export { RunStore, type RunRecord, type StoredReport } from './runs/run-store.js';
export { NODE_VERSION } from './version.js';
export * from './runtime/index.js';
export { removeHostGuard } from './runs/host-guard.js';
export {
  SocketChannel,
  type SocketChannelOptions,
  type SocketHandlers,
} from './server-client/socket-channel.js';
export { gateOutput, type GateVerdict, type OutputRule } from './output/output-gate.js';
export { normaliseOutputPolicy, type OutputPolicy } from './config/output-policy.js';
export type { DeclarationSource, DeclarationQuery } from './output/declaration-source.js';
export { NodeMetrics } from './metrics/node-metrics.js';
