import { EncryptionError } from './errors.js';

/** Standard base64 (RFC 4648 `+/` alphabet) with `=` padding, no line breaks. */
export function encodeBase64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

const NOT_BASE64 = /[^A-Za-z0-9+/]/g;

/**
 * Lenient standard base64 decoding, as vantage6's Python side does it: characters outside the alphabet
 * (line breaks, spaces, stray punctuation) are ignored and missing `=` padding is accepted. A string whose
 * data characters cannot form whole bytes (length 4n+1) is rejected.
 *
 * @param what names the decoded item in the error message, e.g. "the IV part".
 */
export function decodeBase64Lenient(text: string, what: string): Buffer {
  // Padding is only meaningful at the end; everything after the first `=` is ignored, like Python does.
  const eq = text.indexOf('=');
  const data = (eq === -1 ? text : text.slice(0, eq)).replace(NOT_BASE64, '');
  if (data.length % 4 === 1) {
    throw new EncryptionError(
      'malformed-ciphertext',
      `${what} is not valid base64: ${data.length} data characters cannot encode whole bytes`,
    );
  }
  return Buffer.from(data, 'base64');
}
