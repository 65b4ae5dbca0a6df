import { decodeBase64Lenient, encodeBase64 } from './base64.js';
import type { Cryptor } from './cryptor.js';

/**
 * The cryptor of unencrypted collaborations: "encrypting" is standard base64 of the bytes (the recipient key
 * is ignored) and "decrypting" is base64 decoding.
 */
export class DummyCryptor implements Cryptor {
  readonly encrypted = false;
  readonly publicKeyBase64 = '';

  encryptBytesToString(data: Uint8Array, _recipientPublicKeyBase64?: string): string {
    return encodeBase64(data);
  }

  decryptStringToBytes(data: string): Buffer {
    return decodeBase64Lenient(data, 'the unencrypted payload');
  }
}
