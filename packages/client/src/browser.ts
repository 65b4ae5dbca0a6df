/**
 * The browser entry point of `@federa/client`, used by the web UI (packages/ui): everything of the main entry
 * except what needs Node.js (the algorithm client, key files). It is the `browser` condition of the package's
 * `exports`, and a bundler takes `@federa/common` through that package's `browser` condition likewise (docs/ui.md).
 * The main entry (index.ts) is this and the Node.js parts.
 */
export { UserClient, type UserClientOptions, type AuthenticateOptions } from './user-client.js';
export {
  FederaClientError,
  FederaApiError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ValidationError,
  ConnectionError,
  WaitTimeoutError,
  TaskFailedError,
  type FailedRun,
  EncryptionError,
  type ApiErrorDetails,
  type EncryptionErrorReason,
  type ErrorCode,
  type ServerErrorCode,
} from './errors.js';
export { serializePayload, deserializePayload, payloadFormat, type Payload } from './payload.js';
export type { ListOptions } from './pagination.js';
export type * from './types.js';
export type {
  StoreAlgorithm,
  StoreArgument,
  StoreFilters,
  StoreFunction,
  StorePerson,
  StoreReview,
  StoreTask,
  StoreUser,
  ReviewFilters,
} from './resources/store.js';
