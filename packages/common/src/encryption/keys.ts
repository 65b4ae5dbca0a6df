/**
 * RSA key handling for end-to-end encryption (docs/encryption.md, "Keys").
 *
 * Private keys are unencrypted PEM files; new ones are written in PKCS#1 form (`BEGIN RSA PRIVATE KEY`).
 * Public keys travel as standard padded base64 of the complete SubjectPublicKeyInfo PEM text.
 */
import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

import { decodeBase64Lenient, encodeBase64 } from './base64.js';
import { EncryptionError } from './errors.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/** Modulus length of keys made by {@link generatePrivateKeyPem}, as vantage6 3.x does. */
export const DEFAULT_RSA_MODULUS_BITS = 4096;

/** The public exponent of generated keys. */
const PUBLIC_EXPONENT = 65537;

/** Options for {@link generatePrivateKeyPem}. */
export interface GenerateKeyOptions {
  /**
   * RSA modulus length in bits. Smaller keys are for tests only.
   * @default 4096
   */
  modulusBits?: number;
}

/**
 * Generates a new RSA key pair and returns the private key as unencrypted PKCS#1 PEM
 * (`-----BEGIN RSA PRIVATE KEY-----`). Takes about 1–3 s for 4096 bits, off the main thread.
 */
export async function generatePrivateKeyPem(options: GenerateKeyOptions = {}): Promise<string> {
  const { privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: options.modulusBits ?? DEFAULT_RSA_MODULUS_BITS,
    publicExponent: PUBLIC_EXPONENT,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return privateKey;
}

/** Options for {@link writePrivateKeyFile}. */
export interface WritePrivateKeyOptions {
  /**
   * Replace an existing file. Without it an existing file is an error, so a key is never lost by accident.
   * @default false
   */
  overwrite?: boolean;
}

/**
 * Writes a private key PEM to `path`, readable by its owner only (mode 0600).
 * The key is written as PKCS#1 whatever form it was given in.
 */
export async function writePrivateKeyFile(
  path: string,
  key: KeyObject | string,
  options: WritePrivateKeyOptions = {},
): Promise<void> {
  const pem = toPkcs1Pem(typeof key === 'string' ? loadPrivateKey(key) : key);
  await writeFile(path, pem, { mode: 0o600, flag: options.overwrite ? 'w' : 'wx' });
}

/** Generates a new 4096-bit key and writes it to `path` (see {@link writePrivateKeyFile}). */
export async function createPrivateKeyFile(
  path: string,
  options: GenerateKeyOptions & WritePrivateKeyOptions = {},
): Promise<KeyObject> {
  const pem = await generatePrivateKeyPem(options);
  await writePrivateKeyFile(path, pem, options);
  return loadPrivateKey(pem);
}

/**
 * Loads an unencrypted PEM RSA private key (PKCS#1 `RSA PRIVATE KEY` or PKCS#8 `PRIVATE KEY`).
 * @throws EncryptionError (`private-key-invalid`) for anything else, including passphrase-protected keys.
 */
export function loadPrivateKey(pem: string | Buffer): KeyObject {
  const text = typeof pem === 'string' ? pem : pem.toString('utf8');
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text)) {
    throw new EncryptionError(
      'private-key-invalid',
      'the private key is protected by a passphrase; use an unencrypted PEM key (PKCS#1 or PKCS#8)',
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch (cause) {
    throw new EncryptionError(
      'private-key-invalid',
      'the private key is not a readable PEM private key (expected "-----BEGIN RSA PRIVATE KEY-----" or "-----BEGIN PRIVATE KEY-----")',
      { cause },
    );
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new EncryptionError(
      'private-key-invalid',
      `the private key is a ${key.asymmetricKeyType ?? 'non-RSA'} key; end-to-end encryption needs an RSA key`,
    );
  }
  return key;
}

/** Reads and loads a private key file (see {@link loadPrivateKey}); the message names the path on failure. */
export async function readPrivateKeyFile(path: string): Promise<KeyObject> {
  let pem: Buffer;
  try {
    pem = await readFile(path);
  } catch (cause) {
    throw new EncryptionError('private-key-invalid', `cannot read the private key file ${path}`, { cause });
  }
  try {
    return loadPrivateKey(pem);
  } catch (error) {
    if (error instanceof EncryptionError) {
      throw new EncryptionError('private-key-invalid', `${path}: ${error.message}`, { cause: error.cause });
    }
    throw error;
  }
}

/** The private key as PKCS#1 PEM text. */
export function toPkcs1Pem(privateKey: KeyObject): string {
  return privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
}

/**
 * The public key of `key` as SubjectPublicKeyInfo PEM: `-----BEGIN PUBLIC KEY-----`, 64-character lines,
 * trailing newline (the exact bytes vantage6 compares).
 */
export function publicKeyPem(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ type: 'spki', format: 'pem' }).toString();
}

/** The wire form of the public key of `key`: standard padded base64 of {@link publicKeyPem}. */
export function publicKeyBase64(key: KeyObject): string {
  return encodeBase64(Buffer.from(publicKeyPem(key), 'utf8'));
}

/**
 * Tells whether the `public_key` the server holds for an organization is exactly (byte for byte, after
 * base64 decoding) the PEM derived from `privateKey`. `null`, `undefined`, `""` or undecodable values do not
 * match. A node re-uploads its key when this is false.
 */
export function publicKeyMatches(serverPublicKey: string | null | undefined, privateKey: KeyObject): boolean {
  if (!serverPublicKey) return false;
  let stored: Buffer;
  try {
    stored = decodeBase64Lenient(serverPublicKey, 'the public key');
  } catch {
    return false;
  }
  return stored.equals(Buffer.from(publicKeyPem(privateKey), 'utf8'));
}

/**
 * Parses a recipient public key in wire form (base64 of PEM text).
 * @throws EncryptionError `public-key-missing` for an empty value, `public-key-invalid` for anything that is
 * not an RSA public key.
 */
export function publicKeyFromBase64(publicKeyBase64: string): KeyObject {
  if (publicKeyBase64.trim() === '') {
    throw new EncryptionError(
      'public-key-missing',
      'the recipient organization has no public key; its node must upload one before it can receive encrypted data',
    );
  }
  let key: KeyObject;
  try {
    const pem = decodeBase64Lenient(publicKeyBase64, 'the public key').toString('utf8');
    if (!/-----BEGIN (RSA )?PUBLIC KEY-----/.test(pem)) throw new Error('no public key PEM header');
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch (cause) {
    throw new EncryptionError(
      'public-key-invalid',
      'the recipient public key is not base64 of a PEM public key ("-----BEGIN PUBLIC KEY-----")',
      { cause },
    );
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new EncryptionError(
      'public-key-invalid',
      `the recipient public key is a ${key.asymmetricKeyType ?? 'non-RSA'} key; expected RSA`,
    );
  }
  return key;
}
