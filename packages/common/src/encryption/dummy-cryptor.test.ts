import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { DummyCryptor } from './dummy-cryptor.js';
import { EncryptionError } from './errors.js';

describe('DummyCryptor (unencrypted collaborations)', () => {
  const cryptor = new DummyCryptor();

  it('is plain padded base64 both ways and has no public key', () => {
    expect(cryptor.encrypted).toBe(false);
    expect(cryptor.publicKeyBase64).toBe('');
    expect(cryptor.encryptBytesToString(Buffer.from('hello'), 'ignored')).toBe('aGVsbG8=');
    expect(cryptor.decryptStringToBytes('aGVsbG8=').toString()).toBe('hello');
  });

  it.each([0, 1, 2, 3, 1024 * 1024])('round-trips %i bytes', (size) => {
    const data = randomBytes(size);
    const text = cryptor.encryptBytesToString(data, '');
    expect(text).not.toContain('$');
    expect(cryptor.decryptStringToBytes(text).equals(data)).toBe(true);
  });

  it('decodes leniently: missing padding, line breaks, spaces', () => {
    expect(cryptor.decryptStringToBytes('aGVs\nbG8').toString()).toBe('hello');
    expect(cryptor.decryptStringToBytes(' gASV ').toString('hex')).toBe('800495');
  });

  it('rejects base64 whose data characters cannot form whole bytes', () => {
    expect(() => cryptor.decryptStringToBytes('aGVsb')).toThrow(EncryptionError);
    expect(() => cryptor.decryptStringToBytes('aGVsb')).toThrow(/not valid base64/);
  });
});
