/**
 * Interoperability with the vantage6 3.x Python procedure (the `cryptography` library: PKCS1v15 RSA and AES in
 * CTR mode with the IV as counter block), run through testing/python-interop.py with Debian's Python 3.
 * scripts/test-all.sh installs that Python's packages; without them this test fails and says what to install.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

import { beforeAll, describe, expect, it } from 'vitest';

import { generatePrivateKeyPem, loadPrivateKey, publicKeyBase64 } from './keys.js';
import { RsaCryptor } from './rsa-cryptor.js';

const PYTHON = process.env['FEDERA_PYTHON'] ?? '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./testing/python-interop.py', import.meta.url));
const FIXTURES = new URL('../../../../clients/python/tests/fixtures/', import.meta.url);

type PythonRequest =
  | { op: 'decrypt'; private_key_pem: string; data: string }
  | { op: 'encrypt'; public_key_b64: string; plaintext_b64: string }
  | { op: 'public_key'; private_key_pem: string };

function python<T>(request: PythonRequest): T {
  const out = execFileSync(PYTHON, [SCRIPT], {
    input: JSON.stringify(request),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return JSON.parse(out) as T;
}

let pem: string;
let key: KeyObject;
let cryptor: RsaCryptor;

describe('interoperability with the Python cryptography procedure', () => {
  beforeAll(async () => {
    const probe = spawnSync(PYTHON, ['-c', 'import cryptography'], { encoding: 'utf8' });
    if (probe.status !== 0) {
      throw new Error(
        `${PYTHON} with the cryptography package is needed (apt-get install -y python3-cryptography)`,
      );
    }
    pem = await generatePrivateKeyPem(); // 4096 bits, once for this file
    key = loadPrivateKey(pem);
    cryptor = new RsaCryptor(key);
  });

  it('derives the same public key wire form byte for byte', () => {
    expect(
      python<{ public_key_b64: string }>({ op: 'public_key', private_key_pem: pem }).public_key_b64,
    ).toBe(publicKeyBase64(key));
  });

  it.each([0, 1, 1000, 1024 * 1024])('Python decrypts what TypeScript encrypts (%i bytes)', (size) => {
    const plaintext = randomBytes(size);
    const data = cryptor.encryptBytesToString(plaintext, cryptor.publicKeyBase64);
    const { plaintext_b64 } = python<{ plaintext_b64: string }>({
      op: 'decrypt',
      private_key_pem: pem,
      data,
    });
    expect(Buffer.from(plaintext_b64, 'base64').equals(plaintext)).toBe(true);
  });

  it.each([0, 1, 1000, 1024 * 1024])('TypeScript decrypts what Python encrypts (%i bytes)', (size) => {
    const plaintext = randomBytes(size);
    const { data } = python<{ data: string }>({
      op: 'encrypt',
      public_key_b64: cryptor.publicKeyBase64,
      plaintext_b64: plaintext.toString('base64'),
    });
    expect(data.split('$')).toHaveLength(3);
    expect(cryptor.decryptStringToBytes(data).equals(plaintext)).toBe(true);
  });

  it('still decrypts the fixed vector committed for the Python client tests', async () => {
    const vector = JSON.parse(await readFile(new URL('vector.json', FIXTURES), 'utf8')) as {
      plaintext_b64: string;
      ciphertext: string;
      public_key_b64: string;
    };
    const fixtureKey = new RsaCryptor(await readFile(new URL('TEST-ONLY-private-key.pem', FIXTURES)));
    expect(fixtureKey.publicKeyBase64).toBe(vector.public_key_b64);
    expect(fixtureKey.decryptStringToBytes(vector.ciphertext).toString('base64')).toBe(vector.plaintext_b64);
  });
});
