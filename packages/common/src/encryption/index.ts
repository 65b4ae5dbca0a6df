/** End-to-end encryption of task inputs and results; see docs/encryption.md. */
export type { Cryptor } from './cryptor.js';
export { DummyCryptor } from './dummy-cryptor.js';
export { RsaCryptor } from './rsa-cryptor.js';
export { createCryptor, type CryptorOptions } from './create-cryptor.js';
export { EncryptionError, type EncryptionErrorReason } from './errors.js';
export { decodeBase64Lenient, encodeBase64 } from './base64.js';
export { decryptingStream, encryptingStream } from './payload-stream.js';
export { encryptForOrganizations, type OrganizationKey } from './organization-inputs.js';
export {
  DEFAULT_RSA_MODULUS_BITS,
  createPrivateKeyFile,
  generatePrivateKeyPem,
  loadPrivateKey,
  publicKeyBase64,
  publicKeyFromBase64,
  publicKeyMatches,
  publicKeyPem,
  readPrivateKeyFile,
  toPkcs1Pem,
  writePrivateKeyFile,
  type GenerateKeyOptions,
  type WritePrivateKeyOptions,
} from './keys.js';
export {
  SEALED_LOG_HEADER,
  SEALED_PIECE_PREFIX,
  SealedLogOpener,
  isSealedBatch,
  isSealedLog,
  openSealedLog,
  sealLog,
  sealLogPiece,
} from './sealed-log.js';
