import type { Cryptor } from './cryptor.js';
import { DummyCryptor } from './dummy-cryptor.js';
import { EncryptionError } from './errors.js';

/**
 * How to set up a {@link Cryptor} in a browser. An encrypted collaboration needs a private key, which a browser
 * cannot read from a path: its page reads the file the user picks and gives the client a cryptor of its own.
 */
export type CryptorOptions = { encrypted: false } | { encrypted: true; privateKey: unknown };

/**
 * The browser's `createCryptor` (the `browser` entry of the package): the unencrypted cryptor, or an error saying how
 * an encrypted collaboration is used instead (`UserClient.useCryptor` with a cryptor made from the key's text).
 */
export async function createCryptor(options: CryptorOptions): Promise<Cryptor> {
  if (!options.encrypted) return new DummyCryptor();
  throw new EncryptionError(
    'private-key-invalid',
    'A browser cannot read a private key file: load the key in the page and give the client its cryptor (useCryptor).',
  );
}
