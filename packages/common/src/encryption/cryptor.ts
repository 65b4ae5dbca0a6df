/**
 * The end-to-end encryption of task inputs and results (docs/encryption.md).
 *
 * A collaboration is either encrypted ({@link RsaCryptor}) or not ({@link DummyCryptor}); both turn payload
 * bytes into the string stored in `result.input` / `result.result` and back. The server never uses a cryptor.
 */
export interface Cryptor {
  /** True for the RSA/AES mode, false for the unencrypted (plain base64) mode. */
  readonly encrypted: boolean;

  /**
   * This party's public key in wire form (standard base64 of the SubjectPublicKeyInfo PEM), as uploaded to
   * `organization.public_key`; `''` in unencrypted mode.
   */
  readonly publicKeyBase64: string;

  /**
   * Encrypts `data` for the holder of `recipientPublicKeyBase64` (wire form). Unencrypted mode ignores the key.
   * @throws EncryptionError when the recipient key is empty or not an RSA public key (encrypted mode).
   */
  encryptBytesToString(data: Uint8Array, recipientPublicKeyBase64: string): string;

  /**
   * Decrypts a string made by {@link encryptBytesToString} for this party's key.
   * @throws EncryptionError when the string is malformed or was not encrypted for this key.
   */
  decryptStringToBytes(data: string): Buffer;
}
