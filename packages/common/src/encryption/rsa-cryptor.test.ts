import { constants, generateKeyPairSync, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';

import { beforeAll, describe, expect, it } from 'vitest';

import { EncryptionError } from './errors.js';
import { generatePrivateKeyPem, loadPrivateKey } from './keys.js';
import { RsaCryptor } from './rsa-cryptor.js';

let cryptor: RsaCryptor;
let privateKey: KeyObject;

beforeAll(async () => {
  privateKey = loadPrivateKey(await generatePrivateKeyPem()); // 4096 bits, once for this file
  cryptor = new RsaCryptor(privateKey);
});

/** Encrypts `plaintext` for this file's key and returns the string and its decoded parts. */
function encryptParts(plaintext: Uint8Array): { ek: Buffer; iv: Buffer; ct: Buffer; text: string } {
  const text = cryptor.encryptBytesToString(plaintext, cryptor.publicKeyBase64);
  const [ek, iv, ct] = text.split('$').map((p) => Buffer.from(p, 'base64'));
  return { ek: ek!, iv: iv!, ct: ct!, text };
}

function join(...parts: Buffer[]): string {
  return parts.map((p) => p.toString('base64')).join('$');
}

function decryptError(data: string): EncryptionError {
  try {
    cryptor.decryptStringToBytes(data);
  } catch (error) {
    expect(error).toBeInstanceOf(EncryptionError);
    return error as EncryptionError;
  }
  throw new Error('decryption unexpectedly succeeded');
}

describe('RsaCryptor round trip', () => {
  it.each([
    ['empty', 0],
    ['one byte', 1],
    ['not a block multiple', 37],
    ['1 MiB', 1024 * 1024],
  ])('%s plaintext', (_name, size) => {
    const plaintext = randomBytes(size);
    const text = cryptor.encryptBytesToString(plaintext, cryptor.publicKeyBase64);
    expect(cryptor.decryptStringToBytes(text).equals(plaintext)).toBe(true);
  });

  it('accepts any Uint8Array, not only Buffers', () => {
    const plaintext = new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 4);
    const text = cryptor.encryptBytesToString(plaintext, cryptor.publicKeyBase64);
    expect([...cryptor.decryptStringToBytes(text)]).toEqual([2, 3, 4]);
  });

  it('accepts unpadded base64 and line breaks in the parts (lenient decoding)', () => {
    const plaintext = Buffer.from('lenient');
    const { text } = encryptParts(plaintext);
    const sloppy = text
      .split('$')
      .map((p) => p.replace(/=+$/, '').replace(/(.{76})/g, '$1\n'))
      .join('$');
    expect(cryptor.decryptStringToBytes(sloppy).toString()).toBe('lenient');
  });
});

describe('RsaCryptor ciphertext format', () => {
  it('has three padded base64 parts: 512-byte key block, 16-byte IV, ciphertext as long as the plaintext', () => {
    const plaintext = Buffer.from('hello federa, 31 bytes of data!');
    const { ek, iv, ct, text } = encryptParts(plaintext);
    const parts = text.split('$');
    expect(parts).toHaveLength(3);
    for (const part of parts) expect(part).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    expect(parts[0]).toHaveLength(684);
    expect(parts[0]!.endsWith('=')).toBe(true);
    expect(parts[1]).toHaveLength(24);
    expect(parts[1]!.endsWith('==')).toBe(true);
    expect(ek).toHaveLength(512);
    expect(iv).toHaveLength(16);
    expect(ct).toHaveLength(plaintext.length);
    expect(ct.equals(plaintext)).toBe(false);
  });

  it('yields an empty third part for an empty plaintext', () => {
    const parts = cryptor.encryptBytesToString(Buffer.alloc(0), cryptor.publicKeyBase64).split('$');
    expect(parts).toHaveLength(3);
    expect(parts[2]).toBe('');
  });

  it('uses a fresh key and IV for every message', () => {
    const a = encryptParts(Buffer.from('same'));
    const b = encryptParts(Buffer.from('same'));
    expect(a.ek.equals(b.ek)).toBe(false);
    expect(a.iv.equals(b.iv)).toBe(false);
  });

  it('uses the IV as the full 128-bit big-endian counter block (carries across all 16 bytes)', () => {
    // With IV = ff..ff the second block's counter wraps to 00..00. Encrypting 32 bytes of zeros therefore yields
    // the keystream blocks E(ff..ff) and E(00..00); a cipher that treats only part of the IV as counter differs.
    const { ek } = encryptParts(Buffer.alloc(0));
    const ivAllOnes = Buffer.alloc(16, 0xff);
    const ivZero = Buffer.alloc(16, 0);
    const zeros = Buffer.alloc(32);
    // Re-use the key block of a real message with chosen IVs, so both decryptions use the same AES key.
    const fromAllOnes = cryptor.decryptStringToBytes(join(ek, ivAllOnes, zeros));
    const fromZero = cryptor.decryptStringToBytes(join(ek, ivZero, zeros.subarray(0, 16)));
    expect(fromAllOnes.subarray(16).equals(fromZero)).toBe(true);
  });
});

describe('RsaCryptor rejects bad input with EncryptionError', () => {
  it.each([
    ['no separator (unencrypted data)', 'aGVsbG8=', /three base64 parts.*got 1 part.*unencrypted/],
    ['two parts', 'YQ==$YQ==', /three base64 parts.*got 2 part/],
    ['four parts', 'YQ==$YQ==$YQ==$YQ==', /got 4 part/],
  ])('%s', (_name, data, message) => {
    const error = decryptError(data);
    expect(error.reason).toBe('malformed-ciphertext');
    expect(error.message).toMatch(message);
  });

  it('a part that is not base64', () => {
    const { ek, iv } = encryptParts(Buffer.from('x'));
    const error = decryptError(`${ek.toString('base64')}$${iv.toString('base64')}$AAAAA`);
    expect(error.reason).toBe('malformed-ciphertext');
    expect(error.message).toMatch(/ciphertext \(third part\) is not valid base64/);
  });

  it.each([15, 0, 17])('an IV of %i bytes', (length) => {
    const { ek, ct } = encryptParts(Buffer.from('payload'));
    const error = decryptError(join(ek, randomBytes(length), ct));
    expect(error.reason).toBe('iv-invalid');
    expect(error.message).toBe(`the IV (second part) is ${length} bytes; expected 16`);
  });

  it('a key block of the wrong length (another key size)', () => {
    const { iv, ct } = encryptParts(Buffer.from('payload'));
    const error = decryptError(join(randomBytes(256), iv, ct));
    expect(error.reason).toBe('key-block-invalid');
    expect(error.message).toMatch(
      /key block \(first part\) is 256 bytes; this 4096-bit private key expects 512/,
    );
  });

  it('a key block encrypted for another key', () => {
    const other = new RsaCryptor(generateKeyPairSync('rsa', { modulusLength: 4096 }).privateKey);
    const text = cryptor.encryptBytesToString(Buffer.from('for someone else'), other.publicKeyBase64);
    const error = decryptError(text);
    expect(error.reason).toBe('key-block-invalid');
    expect(error.message).toMatch(/does not decrypt to a 32-byte AES key with this private key/);
    expect(other.decryptStringToBytes(text).toString()).toBe('for someone else');
  });

  it('a corrupted key block', () => {
    const { ek, iv, ct } = encryptParts(Buffer.from('payload'));
    ek[100] = ek[100]! ^ 0x01;
    expect(decryptError(join(ek, iv, ct)).reason).toBe('key-block-invalid');
  });

  it.each([16, 0, 33])('a key block that holds a %i-byte key', (length) => {
    const { iv, ct } = encryptParts(Buffer.from('payload'));
    const block = publicEncrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_PADDING },
      randomBytes(length),
    );
    expect(block).toHaveLength(512);
    const error = decryptError(join(block, iv, ct));
    expect(error.reason).toBe('key-block-invalid');
    expect(error.message).toMatch(/does not decrypt to a 32-byte AES key/);
  });

  it('messages carry no key material', () => {
    const { ek, iv, ct } = encryptParts(Buffer.from('secret plaintext'));
    ek[5] = ek[5]! ^ 0xff;
    const error = decryptError(join(ek, iv, ct));
    expect(error.message).not.toContain(ek.toString('base64').slice(0, 16));
    expect(error.message).not.toContain(iv.toString('base64'));
  });

  it('an empty recipient public key', () => {
    expect(() => cryptor.encryptBytesToString(Buffer.from('x'), '')).toThrow(
      expect.objectContaining({ reason: 'public-key-missing', name: 'EncryptionError' }),
    );
  });

  it('a recipient public key that is not base64 of a PEM public key', () => {
    const notPem = Buffer.from('hello').toString('base64');
    expect(() => cryptor.encryptBytesToString(Buffer.from('x'), notPem)).toThrow(
      expect.objectContaining({ reason: 'public-key-invalid' }),
    );
  });
});
