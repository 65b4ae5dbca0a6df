/**
 * The end-to-end encryption of docs/encryption.md, in the browser: RSA PKCS#1 v1.5 for the 32-byte AES key and
 * AES-256-CTR (the IV is the whole 128-bit counter, incremented big-endian) for the data. Byte-compatible with
 * `RsaCryptor` of `@federa/common`, which uses node:crypto. The private key is read from a file the user picks
 * and stays in this page's memory: it is never sent anywhere.
 *
 * node-forge parses the PEM keys and gives the AES block function; the RSA arithmetic uses native BigInt with
 * the Chinese remainder theorem (a 4096-bit decryption takes a few tens of milliseconds).
 */
import { Buffer } from 'buffer';
import forge from 'node-forge';

import { EncryptionError, decodeBase64Lenient, encodeBase64, type Cryptor } from '@federa/common';

const AES_KEY_BYTES = 32;
const IV_BYTES = 16;

interface PrivateParts {
  n: bigint;
  e: bigint;
  p: bigint;
  q: bigint;
  dP: bigint;
  dQ: bigint;
  qInv: bigint;
  bytes: number;
}

const big = (value: forge.jsbn.BigInteger): bigint => BigInt(`0x${value.toString(16)}`);

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let b = base % modulus;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % modulus;
    b = (b * b) % modulus;
    e >>= 1n;
  }
  return result;
}

function toBigInt(bytes: Uint8Array): bigint {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex === '' ? 0n : BigInt(`0x${hex}`);
}

function toBytes(value: bigint, length: number): Uint8Array {
  const hex = value.toString(16).padStart(length * 2, '0');
  if (hex.length > length * 2) throw new RangeError('integer too large for its block');
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  globalThis.crypto.getRandomValues(out);
  return out;
}

const toBinary = (bytes: Uint8Array): string => {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
};

/** AES-256-CTR with a full 128-bit big-endian counter (OpenSSL's `aes-256-ctr`); encryption = decryption. */
export function aes256Ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const blocks = Math.ceil(data.length / 16);
  const counters = new Uint8Array(blocks * 16);
  const counter = Uint8Array.from(iv);
  for (let i = 0; i < blocks; i++) {
    counters.set(counter, i * 16);
    for (let j = 15; j >= 0; j--) {
      counter[j] = (counter[j]! + 1) & 0xff;
      if (counter[j] !== 0) break;
    }
  }
  const cipher = forge.cipher.createCipher('AES-ECB', forge.util.createBuffer(toBinary(key)));
  cipher.start();
  cipher.update(forge.util.createBuffer(toBinary(counters)));
  // No padding: the counter blocks are whole blocks.
  (cipher.finish as unknown as (pad: () => boolean) => boolean)(() => true);
  const stream = cipher.output.getBytes();
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i]! ^ stream.charCodeAt(i);
  return out;
}

/** The PEM of a public key as the other implementations write it: `\n` line ends, a trailing newline. */
function publicPem(n: bigint, e: bigint): string {
  const key = forge.pki.setRsaPublicKey(
    new forge.jsbn.BigInteger(n.toString(16), 16),
    new forge.jsbn.BigInteger(e.toString(16), 16),
  );
  const pem = forge.pki.publicKeyToPem(key).replace(/\r\n/g, '\n');
  return pem.endsWith('\n') ? pem : `${pem}\n`;
}

/** Reads the recipient's public key (wire form: base64 of the SubjectPublicKeyInfo PEM). */
function recipientKey(publicKeyBase64: string): { n: bigint; e: bigint; bytes: number } {
  if (!publicKeyBase64) {
    throw new EncryptionError('public-key-missing', 'the recipient organization has no public key');
  }
  try {
    const pem = new TextDecoder().decode(decodeBase64Lenient(publicKeyBase64, 'the public key'));
    const key = forge.pki.publicKeyFromPem(pem) as forge.pki.rsa.PublicKey;
    const n = big(key.n);
    return { n, e: big(key.e), bytes: Math.ceil(n.toString(16).length / 2) };
  } catch (error) {
    if (error instanceof EncryptionError) throw error;
    throw new EncryptionError('public-key-invalid', 'the recipient public key is not an RSA public key');
  }
}

/**
 * Reads an unencrypted PEM RSA private key (PKCS#1 or PKCS#8).
 * @throws EncryptionError (`private-key-invalid`) naming the file for anything else.
 */
function privateParts(pem: string, fileName: string): PrivateParts {
  let key: forge.pki.rsa.PrivateKey;
  try {
    if (/ENCRYPTED/.test(pem)) throw new Error('encrypted');
    key = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
    if (!key?.n || !key.d) throw new Error('not RSA');
  } catch {
    throw new EncryptionError(
      'private-key-invalid',
      `${fileName} is not an unencrypted PEM RSA private key (PKCS#1 or PKCS#8)`,
    );
  }
  const n = big(key.n);
  return {
    n,
    e: big(key.e),
    p: big(key.p),
    q: big(key.q),
    dP: big(key.dP),
    dQ: big(key.dQ),
    qInv: big(key.qInv),
    bytes: Math.ceil(n.toString(16).length / 2),
  };
}

/** PKCS#1 v1.5 type-2 padding removal; `null` for every kind of failure (one error, no detail). */
function unpad(block: Uint8Array): Uint8Array | null {
  let ok = block[0] === 0 && block[1] === 2;
  let separator = -1;
  for (let i = 2; i < block.length; i++) {
    if (separator === -1 && block[i] === 0) separator = i;
  }
  ok = ok && separator >= 10 && block.length - separator - 1 === AES_KEY_BYTES;
  return ok ? block.subarray(separator + 1) : null;
}

/** A {@link Cryptor} for encrypted collaborations in the browser. */
export class BrowserRsaCryptor implements Cryptor {
  readonly encrypted = true;
  readonly publicKeyBase64: string;
  readonly #key: PrivateParts;

  /**
   * @param pem the text of the organization's private key file.
   * @param fileName shown in errors.
   * @throws EncryptionError when the text is not an unencrypted RSA private key.
   */
  constructor(pem: string, fileName = 'the key file') {
    this.#key = privateParts(pem, fileName);
    this.publicKeyBase64 = encodeBase64(new TextEncoder().encode(publicPem(this.#key.n, this.#key.e)));
  }

  /** Whether `publicKeyBase64` (wire form) is the public half of this key: the same modulus and exponent. */
  matchesPublicKey(publicKeyBase64: string | null | undefined): boolean {
    if (!publicKeyBase64) return false;
    try {
      const other = recipientKey(publicKeyBase64);
      return other.n === this.#key.n && other.e === this.#key.e;
    } catch {
      return false;
    }
  }

  /** Size of the key in bits. */
  get modulusBits(): number {
    return this.#key.n.toString(2).length;
  }

  encryptBytesToString(data: Uint8Array, recipientPublicKeyBase64: string): string {
    const recipient = recipientKey(recipientPublicKeyBase64);
    const aesKey = randomBytes(AES_KEY_BYTES);
    const iv = randomBytes(IV_BYTES);
    const ciphertext = aes256Ctr(aesKey, iv, data);
    // 00 02 PS 00 K, PS non-zero random bytes.
    const block = new Uint8Array(recipient.bytes);
    block[1] = 2;
    const psLength = recipient.bytes - AES_KEY_BYTES - 3;
    const ps = randomBytes(psLength);
    for (let i = 0; i < psLength; i++) {
      while (ps[i] === 0) ps[i] = randomBytes(1)[0]!;
    }
    block.set(ps, 2);
    block.set(aesKey, recipient.bytes - AES_KEY_BYTES);
    const encryptedKey = toBytes(modPow(toBigInt(block), recipient.e, recipient.n), recipient.bytes);
    return `${encodeBase64(encryptedKey)}$${encodeBase64(iv)}$${encodeBase64(ciphertext)}`;
  }

  decryptStringToBytes(data: string): Buffer {
    const parts = data.split('$');
    if (parts.length !== 3) {
      throw new EncryptionError(
        'malformed-ciphertext',
        `encrypted data must be three base64 parts joined by "$", got ${parts.length} part(s) ` +
          '(is this collaboration unencrypted?)',
      );
    }
    const keyBlock = decodeBase64Lenient(parts[0]!, 'the key block (first part)');
    const iv = decodeBase64Lenient(parts[1]!, 'the IV (second part)');
    const ciphertext = decodeBase64Lenient(parts[2]!, 'the ciphertext (third part)');
    if (iv.length !== IV_BYTES) {
      throw new EncryptionError('iv-invalid', `the IV (second part) is ${iv.length} bytes; expected 16`);
    }
    const k = this.#key;
    if (keyBlock.length !== k.bytes) {
      throw new EncryptionError(
        'key-block-invalid',
        `the key block (first part) is ${keyBlock.length} bytes; this ${this.modulusBits}-bit private key ` +
          `expects ${k.bytes} (was it encrypted for another organization?)`,
      );
    }
    const c = toBigInt(keyBlock);
    let aesKey: Uint8Array | null = null;
    if (c < k.n) {
      const m1 = modPow(c, k.dP, k.p);
      const m2 = modPow(c, k.dQ, k.q);
      const h = (((m1 - m2) % k.p) + k.p) % k.p;
      const m = m2 + ((h * k.qInv) % k.p) * k.q;
      aesKey = unpad(toBytes(m, k.bytes));
    }
    if (aesKey === null) {
      throw new EncryptionError(
        'key-block-invalid',
        'the key block (first part) does not decrypt to a 32-byte AES key with this private key ' +
          '(was it encrypted for another organization?)',
      );
    }
    return Buffer.from(aes256Ctr(aesKey, iv, ciphertext));
  }
}
