export { runAlgorithm, type AlgorithmModule, type RunOptions } from './wrapper.js';
export {
  AlgorithmClient,
  type CreateTaskOptions,
  type SubTaskInput,
  type TokenIdentity,
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
