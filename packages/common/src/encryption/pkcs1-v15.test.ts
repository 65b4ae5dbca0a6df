import { constants, generateKeyPairSync, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';

import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';

import { decryptPkcs1v15 } from './pkcs1-v15.js';

let privateKey: KeyObject;
let publicKey: KeyObject;
let forgeKey: forge.pki.rsa.PrivateKey;
const K = 512;

beforeAll(() => {
  ({ privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 4096 })); // once for this file
  forgeKey = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
});

/** RSA-encrypts a hand-made encoded message EM (k bytes) without padding. */
function rawEncrypt(em: Buffer): Buffer {
  return publicEncrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, em);
}

/** EM = 00 02 PS 00 M with a non-zero PS of the right length. */
function encode(message: Buffer): Buffer {
  const ps = Buffer.alloc(K - 3 - message.length);
  for (let i = 0; i < ps.length; i++) ps[i] = 1 + (randomBytes(1)[0]! % 255);
  return Buffer.concat([Buffer.from([0, 2]), ps, Buffer.from([0]), message]);
}

describe('decryptPkcs1v15', () => {
  it('decrypts what OpenSSL encrypts with PKCS#1 v1.5 padding, like node-forge', () => {
    for (let i = 0; i < 3; i++) {
      const secret = randomBytes(32);
      const block = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, secret);
      expect(decryptPkcs1v15(privateKey, block, 32)?.equals(secret)).toBe(true);
      expect(forgeKey.decrypt(block.toString('binary'), 'RSAES-PKCS1-V1_5')).toBe(secret.toString('binary'));
    }
  });

  it('accepts a hand-made valid encoding, including a key with zero bytes at either end', () => {
    const secret = Buffer.concat([Buffer.alloc(4), randomBytes(24), Buffer.alloc(4)]);
    expect(decryptPkcs1v15(privateKey, rawEncrypt(encode(secret)), 32)?.equals(secret)).toBe(true);
  });

  const invalid: [string, (em: Buffer) => void][] = [
    ['first byte not 00', (em) => (em[0] = 1)],
    ['block type 01 (signature padding)', (em) => (em[1] = 1)],
    ['block type 00', (em) => (em[1] = 0)],
    ['no zero separator', (em) => em.fill(7, 2)],
    ['separator inside the first 8 padding bytes', (em) => (em[9] = 0)],
    ['separator at index 2 (empty PS)', (em) => (em[2] = 0)],
    ['message one byte too long', (em) => ((em[K - 33] = 0x55), (em[K - 34] = 0))],
    ['message one byte too short', (em) => ((em[K - 33] = 0x55), (em[K - 32] = 0))],
  ];
  it.each(invalid)('rejects: %s', (_name, corrupt) => {
    const em = encode(randomBytes(32));
    corrupt(em);
    expect(decryptPkcs1v15(privateKey, rawEncrypt(em), 32)).toBeNull();
  });

  it('rejects a value that is not below the modulus', () => {
    expect(decryptPkcs1v15(privateKey, Buffer.alloc(K, 0xff), 32)).toBeNull();
  });

  it('agrees with node-forge on random blocks (almost all invalid)', () => {
    for (let i = 0; i < 4; i++) {
      const block = rawEncrypt(Buffer.concat([Buffer.from([0]), randomBytes(K - 1)]));
      let forgeOk: boolean;
      try {
        forgeOk = forgeKey.decrypt(block.toString('binary'), 'RSAES-PKCS1-V1_5').length === 32;
      } catch {
        forgeOk = false;
      }
      expect(decryptPkcs1v15(privateKey, block, 32) !== null).toBe(forgeOk);
    }
  });
});
