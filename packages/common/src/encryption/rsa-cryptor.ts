import { createDecipheriv, type Decipher, type KeyObject } from 'node:crypto';

import { decodeBase64Lenient, encodeBase64 } from './base64.js';
import type { Cryptor } from './cryptor.js';
import { EncryptionError } from './errors.js';
import { loadPrivateKey, publicKeyBase64, readPrivateKeyFile } from './keys.js';
import { AES_KEY_BYTES, IV_BYTES, SEPARATOR, startMessage } from './message-key.js';
import { decryptPkcs1v15 } from './pkcs1-v15.js';

/**
 * The cryptor of encrypted collaborations (docs/encryption.md#the-encrypted-format):
 * `base64(EK) + "$" + base64(IV) + "$" + base64(C)`, where `C` is AES-256-CTR of the payload under a fresh
 * random key `K` and counter block `IV`, and `EK` is `K` encrypted with the recipient's RSA key using
 * PKCS#1 v1.5 padding.
 *
 * Node.js refuses PKCS#1 v1.5 private decryption (CVE-2023-46809) and vantage6 interoperability rules out
 * OAEP, so the key block is decrypted by OpenSSL without padding and unpadded in {@link decryptPkcs1v15}.
 */
export class RsaCryptor implements Cryptor {
  readonly encrypted = true;
  readonly publicKeyBase64: string;
  /** Modulus length in bytes = length of every key block made for this key. */
  readonly keyBlockBytes: number;
  readonly #privateKey: KeyObject;

  /** @param privateKey an RSA private key, or its unencrypted PEM text (PKCS#1 or PKCS#8). */
  constructor(privateKey: KeyObject | string | Buffer) {
    const key =
      typeof privateKey === 'string' || Buffer.isBuffer(privateKey) ? loadPrivateKey(privateKey) : privateKey;
    if (key.type !== 'private' || key.asymmetricKeyType !== 'rsa') {
      throw new EncryptionError('private-key-invalid', 'RsaCryptor needs an RSA private key');
    }
    this.publicKeyBase64 = publicKeyBase64(key);
    this.keyBlockBytes = (key.asymmetricKeyDetails?.modulusLength ?? 0) / 8;
    this.#privateKey = key;
  }

  /** Loads the private key file at `path` (unencrypted PEM). */
  static async fromFile(path: string): Promise<RsaCryptor> {
    return new RsaCryptor(await readPrivateKeyFile(path));
  }

  encryptBytesToString(data: Uint8Array, recipientPublicKeyBase64: string): string {
    const { header, cipher } = startMessage(recipientPublicKeyBase64);
    return header + encodeBase64(Buffer.concat([cipher.update(data), cipher.final()]));
  }

  decryptStringToBytes(data: string): Buffer {
    const parts = data.split(SEPARATOR);
    const [ekPart, ivPart, ciphertextPart] = parts;
    if (parts.length !== 3 || ekPart === undefined || ivPart === undefined || ciphertextPart === undefined) {
      throw new EncryptionError(
        'malformed-ciphertext',
        `encrypted data must be three base64 parts separated by "$" (key block, IV, ciphertext); got ${parts.length} part(s)` +
          (parts.length === 1 ? ' (is this collaboration unencrypted?)' : ''),
      );
    }
    const ciphertext = decodeBase64Lenient(ciphertextPart, 'the ciphertext (third part)');
    const decipher = this.decipherFor(ekPart, ivPart);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  }

  /**
   * The decipher of a message from its first two parts (base64 key block and IV); the whole-string decryption and
   * the streaming one (payload-stream.ts) share it.
   */
  decipherFor(keyBlockPart: string, ivPart: string): Decipher {
    const encryptedKey = decodeBase64Lenient(keyBlockPart, 'the key block (first part)');
    const iv = decodeBase64Lenient(ivPart, 'the IV (second part)');
    if (iv.length !== IV_BYTES) {
      throw new EncryptionError(
        'iv-invalid',
        `the IV (second part) is ${iv.length} bytes; expected ${IV_BYTES}`,
      );
    }
    const key = this.#unwrapKey(encryptedKey);
    const decipher = createDecipheriv('aes-256-ctr', key, iv);
    key.fill(0);
    return decipher;
  }

  /** RSAES-PKCS1-v1_5 decryption of the key block; must yield exactly 32 bytes. */
  #unwrapKey(encryptedKey: Buffer): Buffer {
    if (encryptedKey.length !== this.keyBlockBytes) {
      throw new EncryptionError(
        'key-block-invalid',
        `the key block (first part) is ${encryptedKey.length} bytes; this ${this.keyBlockBytes * 8}-bit private key expects ${this.keyBlockBytes} (was the data encrypted for another organization's key?)`,
      );
    }
    const key = decryptPkcs1v15(this.#privateKey, encryptedKey, AES_KEY_BYTES);
    if (key === null) {
      // One message for every failure: no detail that could serve as a padding oracle.
      throw new EncryptionError(
        'key-block-invalid',
        `the key block (first part) does not decrypt to a ${AES_KEY_BYTES}-byte AES key with this private key (encrypted for another organization's key, or corrupted)`,
      );
    }
    return key;
  }
}
