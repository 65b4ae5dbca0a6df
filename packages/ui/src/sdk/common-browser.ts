/**
 * The part of `@federa/common` the SDK needs in a browser: socket event names, run statuses, the wire types and the list
 * unwrapper, the JWT reader and the payload format detector, the encryption error and base64 helpers, and the
 * unencrypted cryptor, the sealed-log reader. Key files cannot be read from disk in a browser: the UI reads the file the user picks and
 * gives the SDK a {@link BrowserRsaCryptor} (see docs/ui.md). The build points the `@federa/common` import of the
 * SDK here.
 */
import { DummyCryptor } from '../../../common/src/encryption/dummy-cryptor.js';
import type { Cryptor } from '../../../common/src/encryption/cryptor.js';

export * from '../../../common/src/socket-events.js';
export * from '../../../common/src/run-status.js';
export type * from '../../../common/src/wire/index.js';
export { listOf, refId } from '../../../common/src/wire/list.js';
export * from '../../../common/src/jwt.js';
export * from '../../../common/src/payload-format.js';
export { EncryptionError, type EncryptionErrorReason } from '../../../common/src/encryption/errors.js';
export { decodeBase64Lenient, encodeBase64 } from '../../../common/src/encryption/base64.js';
export * from '../../../common/src/encryption/sealed-log.js';
export { encryptForOrganizations } from '../../../common/src/encryption/organization-inputs.js';
export { DummyCryptor };
export type { Cryptor };

const NO_FILES = 'In the browser, load the key file with the page\'s "Load key file" button.';

export async function createCryptor(options: { encrypted: boolean; privateKey?: unknown }): Promise<Cryptor> {
  if (!options.encrypted) return new DummyCryptor();
  throw new Error(NO_FILES);
}

export function createPrivateKeyFile(): never {
  throw new Error(NO_FILES);
}
export function readPrivateKeyFile(): never {
  throw new Error(NO_FILES);
}
export function publicKeyBase64(): never {
  throw new Error(NO_FILES);
}
