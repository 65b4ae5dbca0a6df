/**
 * RSAES-PKCS1-v1_5 decryption (RFC 8017 §7.2.2) of a fixed-length secret, without Node's refused
 * `RSA_PKCS1_PADDING` private decryption (CVE-2023-46809).
 *
 * The RSA operation itself is OpenSSL's, through `privateDecrypt` with `RSA_NO_PADDING` (blinded, CRT, native);
 * only the removal of the padding `00 02 PS 00 M` is done here. That removal is written without
 * data-dependent branches or early exits, and every kind of failure (bad padding, wrong message length, value
 * not below the modulus) has the same outcome, so that the result does not tell a caller more than
 * "this was not a valid key block". See docs/encryption.md for the reasons and the measured cost.
 */
import { constants, privateDecrypt, type KeyObject } from 'node:crypto';

/** Minimum padding string length (RFC 8017: PS is at least eight octets). */
const MIN_PADDING_BYTES = 8;

/** 1 if a === b, else 0, for small non-negative integers, without branching. */
function ctEq(a: number, b: number): number {
  return (((a ^ b) - 1) >>> 31) & 1;
}

/** 1 if a >= b, else 0, for non-negative integers below 2^31, without branching. */
function ctGe(a: number, b: number): number {
  return 1 ^ (((a - b) >>> 31) & 1);
}

/**
 * Decrypts `block` with `privateKey` and removes PKCS#1 v1.5 encryption padding, accepting only a message of
 * exactly `expectedLength` bytes.
 *
 * @param block the RSA ciphertext; must be exactly as long as the modulus (checked by the caller).
 * @returns the message, or `null` for any kind of invalid block (deliberately indistinguishable).
 */
export function decryptPkcs1v15(privateKey: KeyObject, block: Buffer, expectedLength: number): Buffer | null {
  let em: Buffer;
  try {
    em = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, block);
  } catch {
    return null; // e.g. the value is not below the modulus
  }
  const k = em.length;
  // EM = 0x00 || 0x02 || PS (non-zero bytes) || 0x00 || M
  let good = ctEq(em[0] ?? 1, 0) & ctEq(em[1] ?? 0, 2);
  let found = 0;
  let separator = 0;
  for (let i = 2; i < k; i++) {
    const isZero = ctEq(em[i] ?? 1, 0);
    const first = isZero & (found ^ 1);
    separator = (separator & -(first ^ 1)) | (i & -first);
    found |= isZero;
  }
  good &= found;
  good &= ctGe(separator, 2 + MIN_PADDING_BYTES);
  good &= ctEq(k - separator - 1, expectedLength);
  if (good !== 1) {
    em.fill(0);
    return null;
  }
  const message = Buffer.from(em.subarray(k - expectedLength));
  em.fill(0);
  return message;
}
