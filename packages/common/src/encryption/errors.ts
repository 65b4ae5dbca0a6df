/**
 * Why an encryption operation failed. Stable strings, meant for callers that branch on the cause
 * (e.g. the node re-fetching a public key on `public-key-invalid`).
 */
export type EncryptionErrorReason =
  /** The ciphertext string is not `base64(EK)$base64(IV)$base64(C)`, or a part is not base64. */
  | 'malformed-ciphertext'
  /** The RSA key block has the wrong length, does not decrypt with this key, or does not hold 32 bytes. */
  | 'key-block-invalid'
  /** The IV part does not decode to 16 bytes. */
  | 'iv-invalid'
  /** The recipient's public key is empty (the organization never uploaded one). */
  | 'public-key-missing'
  /** The recipient's public key is not base64 of a PEM RSA public key. */
  | 'public-key-invalid'
  /** The private key cannot be read, is not RSA, or is protected by a passphrase. */
  | 'private-key-invalid';

/**
 * Raised for every failure of the end-to-end encryption layer. Messages say what was wrong and never
 * contain key material or plaintext.
 */
export class EncryptionError extends Error {
  override readonly name = 'EncryptionError';
  readonly reason: EncryptionErrorReason;

  constructor(reason: EncryptionErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}
