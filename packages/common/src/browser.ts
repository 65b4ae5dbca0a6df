/**
 * The browser entry point of `@federa/common` (the `browser` condition of its package.json `exports`): the part a
 * browser bundle of the SDK and the web UI use. Socket event names, run statuses, the wire types and the list
 * unwrapper, the JWT reader, the payload format detector, the encryption error, base64, the unencrypted cryptor and
 * the sealed-log reader. It imports no Node.js module; it uses the `Buffer` global, which the bundle provides (the web
 * UI: the `buffer` package, docs/ui.md). Private keys are not read from files here, see {@link createCryptor}.
 */
export * from './socket-events.js';
export * from './run-status.js';
export type * from './wire/index.js';
export { listOf, refId } from './wire/list.js';
export * from './jwt.js';
export * from './payload-format.js';
export type { Cryptor } from './encryption/cryptor.js';
export { DummyCryptor } from './encryption/dummy-cryptor.js';
export { createCryptor, type CryptorOptions } from './encryption/create-cryptor-browser.js';
export { EncryptionError, type EncryptionErrorReason } from './encryption/errors.js';
export { decodeBase64Lenient, encodeBase64 } from './encryption/base64.js';
export * from './encryption/sealed-log.js';
export { encryptForOrganizations, type OrganizationKey } from './encryption/organization-inputs.js';
