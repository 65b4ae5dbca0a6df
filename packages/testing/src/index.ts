/**
 * @federa/testing: what Federa's tests start and use, kept out of the shipped packages. Real things on port 0:
 * servers, databases, nodes, proxies, a load balancer, a registry. Fakes only where the real thing cannot run
 * here, and they say so. A devDependency only; nothing shipped imports it.
 */
// Servers and their databases.
export {
  TEST_DIALECT,
  TEST_PG_ADMIN_URI,
  createTestDatabase,
  testDatabasesMade,
  type TestDatabase,
} from './database.js';
export {
  ROOT_PASSWORD,
  startTestApp,
  type ApiResponse,
  type RequestOptions,
  type TestApp,
  type TestAppOptions,
} from './test-app.js';
export { startTestServer, type LogLine, type TestServer, type TestServerOptions } from './test-server.js';
export { Fixtures, type FixtureUser } from './fixtures.js';
export { countTaskRows, taskBody, taskWorld } from './task-world.js';
export {
  startV4World,
  v4Caller,
  type V4Answer,
  type V4Call,
  type V4CallerOptions,
  type V4World,
} from './v4-world.js';
export { RecordingEventBus, type RecordedEvent } from './recording-event-bus.js';
export {
  connected,
  disconnected,
  hear,
  received,
  startSocketApp,
  type ConnectOptions,
  type Heard,
  type SocketApp,
  type TasksClient,
} from './socket-harness.js';
export { nodeView, researcherPostsTask, socketNetwork, userStatus } from './socket-world.js';
export { nodeCall, nodeTime, rootUserClient, userClientOf } from './user-client-world.js';
export { expectSecondPage } from './pagination-checks.js';
export { NODE_KEYS } from './wire-keys.js';
export { storedFiles } from './stored-files.js';
export { averageDescription, digestOf, storeApi } from './store.js';
export { queriesDuring, statementsDuring, type SentStatement } from './queries.js';
// Server internals a test of another package reads (the socket rooms, the stored time format).
export { formatStored, presenceRoom } from '@federa/server';

// The network and waiting.
export { freePort, freeUdpPort } from './ports.js';
export { call, type JsonResponse } from './http.js';
export { until } from './wait.js';
export { TcpProxy } from './tcp-proxy.js';
export { memoryTracing, spanLeaks, type ReadableSpan } from './tracing.js';
export {
  NGINX_BIN,
  balancerConfig,
  startBalancer,
  type Balancer,
  type BalancerOptions,
} from './nginx-balancer.js';
export { FakeNode } from './fake-node.js';

// Docker, registries and nodes.
export {
  buildImage,
  docker,
  dockerBridgeGateway,
  dockerQuiet,
  removeNodeObjects,
  requireDocker,
  requireImage,
} from './docker.js';
export { INFRA_TEST_TAG, infraImage } from './infra-image.js';
export {
  HELPER_IMAGE,
  NODE_IMAGE,
  TEST_LABEL,
  cleanUp,
  containerEngines,
  dockerEngine,
  engineKit,
  removeEngineObjects,
  requireEngine,
  runPrefix,
  type Cleanups,
  type Engine,
  type FinishedContainer,
} from './container-engines.js';
export { HTTP_GET_RETRY, TCP_PROBE, hostAddress, startOutside, tcpServer } from './outside-network.js';
export { LocalRegistry, type LocalRegistryOptions } from './local-registry.js';
export {
  createFederation,
  startE2eServer,
  type E2eServer,
  type E2eServerOptions,
  type Federation,
} from './e2e/e2e-server.js';
export { startE2eNode, type StartedNode } from './e2e/e2e-node.js';
export {
  createNodeProcess,
  type NodeLogLine,
  type NodeMode,
  type NodeProcess,
  type NodeProcessOptions,
} from './e2e/node-process.js';

// The command lines.
export { runCli, type CliRun } from './cli/run-cli.js';
export { tempXdg, uniqueName, useXdg, type TestDirs, type XdgVariable } from './cli/xdg.js';
export { KEYS, PromptDriver, type Exchange } from './cli/prompt-driver.js';
