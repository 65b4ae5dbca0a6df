import { constants, createCipheriv, publicEncrypt, randomBytes, type Cipher } from 'node:crypto';

import { encodeBase64 } from './base64.js';
import { publicKeyFromBase64 } from './keys.js';

/** Length of the per-message AES-256 key. */
export const AES_KEY_BYTES = 32;
/** Length of the IV, used as the complete initial CTR counter block. */
export const IV_BYTES = 16;
/** Separator of the three base64 parts. */
export const SEPARATOR = '$';

/** The start of one encrypted message: its first two parts and the cipher of its third. */
export interface MessageStart {
  /** `base64(EK) + "$" + base64(IV) + "$"`: what precedes the base64 of the ciphertext. */
  readonly header: string;
  /** AES-256-CTR under the message's fresh key and IV. */
  readonly cipher: Cipher;
}

/**
 * Starts a message for the holder of `recipientPublicKeyBase64` (docs/encryption.md#the-encrypted-format): a fresh
 * key and IV, the key encrypted with PKCS#1 v1.5. Whole strings and streams are made from the same start, so both
 * give the same bytes.
 */
export function startMessage(recipientPublicKeyBase64: string): MessageStart {
  const recipient = publicKeyFromBase64(recipientPublicKeyBase64);
  const key = randomBytes(AES_KEY_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-ctr', key, iv);
  const encryptedKey = publicEncrypt({ key: recipient, padding: constants.RSA_PKCS1_PADDING }, key);
  key.fill(0);
  return { header: encodeBase64(encryptedKey) + SEPARATOR + encodeBase64(iv) + SEPARATOR, cipher };
}
