import type { KeyObject } from 'node:crypto';

import type { Cryptor } from './cryptor.js';
import { DummyCryptor } from './dummy-cryptor.js';
import { RsaCryptor } from './rsa-cryptor.js';

/** How to set up a {@link Cryptor}: it must agree with the collaboration's `encrypted` flag. */
export type CryptorOptions =
  | { encrypted: false }
  | {
      encrypted: true;
      /** An RSA private key, its unencrypted PEM text, or `{ path }` of an unencrypted PEM file. */
      privateKey: KeyObject | string | Buffer | { path: string };
    };

/** Creates the cryptor for an encrypted or unencrypted collaboration. */
export async function createCryptor(options: CryptorOptions): Promise<Cryptor> {
  if (!options.encrypted) return new DummyCryptor();
  const { privateKey } = options;
  if (typeof privateKey === 'object' && 'path' in privateKey) return RsaCryptor.fromFile(privateKey.path);
  return new RsaCryptor(privateKey);
}
