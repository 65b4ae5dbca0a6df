/**
 * `@federa/client`: the TypeScript SDK of Federa (wire-compatible with vantage6 3.x).
 *
 * - {@link UserClient} for people: log in, manage resources, create encrypted tasks, read decrypted results.
 * - {@link AlgorithmClient} for algorithm containers: sub-tasks through the node's proxy.
 *
 * See docs/client-typescript.md.
 */
export * from './browser.js';
export {
  AlgorithmClient,
  containerIdentity,
  type AlgorithmClientOptions,
  type ContainerIdentity,
  type SubTaskSpec,
  type SubTaskResult,
  type SubTaskWaitOptions,
} from './algorithm-client.js';
/** Key helpers from `@federa/common`, so a researcher needs only this package. */
export { createPrivateKeyFile, readPrivateKeyFile, publicKeyBase64 } from '@federa/common';
export { readResultOutput, saveResultOutput } from './result-output.js';
export type { WaitOptions } from './wait.js';
export type { QueryValue } from './http.js';
export type { UserResource, UserFilters, NewUser, UserUpdate } from './resources/user.js';
export type {
  OrganizationResource,
  OrganizationFilters,
  OrganizationFields,
} from './resources/organization.js';
export type {
  CollaborationResource,
  CollaborationFilters,
  NewCollaboration,
} from './resources/collaboration.js';
export type { NodeResource, NodeFilters, NewNodeFields, NodeUpdate } from './resources/node.js';
export type { TaskResource, TaskFilters, NewTask } from './resources/task.js';
export type { ResultResource, ResultFilters } from './resources/result.js';
export type { LogOptions } from './resources/result-logs.js';
export type { RoleResource, RoleFilters, NewRole, RoleUpdate } from './resources/role.js';
export type { RuleResource, RuleFilters } from './resources/rule.js';
export type {
  StoreResource,
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
