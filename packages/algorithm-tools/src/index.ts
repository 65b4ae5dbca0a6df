export { runAlgorithm, type AlgorithmModule, type RunOptions } from './wrapper.js';
export {
  AlgorithmClient,
  AlgorithmClientError,
  ProxyRequestError,
  ProxyUnreachableError,
  SubTaskTimeoutError,
  containerIdentity,
  optionsFromEnv,
  DEFAULT_ERRORS,
  type AddressQuery,
  type AlgorithmAddress,
  type AlgorithmClientErrors,
  type AlgorithmClientOptions,
  type ContainerIdentity,
  type CreateTaskOptions,
  type ProxyRefusal,
  type SubTaskInput,
  type SubTaskResult,
  type SubTaskSpec,
  type SubTaskWaitOptions,
  type WaitOptions,
} from './algorithm-client.js';
export { loadData, parseCsv, databaseUri, databaseType, type Row } from './data.js';
export {
  detectFormat,
  decodeJsonPayload,
  encodeJsonPayload,
  PayloadFormatError,
  type AlgorithmInput,
  type PayloadFormat,
} from './payload.js';
