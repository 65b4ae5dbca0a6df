export { runAlgorithm, type AlgorithmModule, type RunOptions } from './wrapper.js';
export { AlgorithmClient } from './algorithm-client.js';
export {
  AlgorithmClientError,
  ProxyRequestError,
  ProxyUnreachableError,
  SubTaskTimeoutError,
  DEFAULT_ERRORS,
  type AlgorithmClientErrors,
  type ProxyRefusal,
} from './algorithm-client-errors.js';
export {
  containerIdentity,
  optionsFromEnv,
  type AlgorithmClientOptions,
  type ContainerIdentity,
} from './container-environment.js';
export type {
  AddressQuery,
  AlgorithmAddress,
  CreateTaskOptions,
  SubTaskInput,
  SubTaskResult,
  SubTaskSpec,
  SubTaskWaitOptions,
  WaitOptions,
} from './sub-task-types.js';
export { loadData, parseCsv, databaseUri, databaseType, type Row } from './data.js';
export {
  detectFormat,
  decodeJsonPayload,
  encodeJsonPayload,
  PayloadFormatError,
  type AlgorithmInput,
  type PayloadFormat,
} from './payload.js';
