import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { EncryptionError } from './errors.js';
import {
  createPrivateKeyFile,
  generatePrivateKeyPem,
  loadPrivateKey,
  publicKeyBase64,
  publicKeyFromBase64,
  publicKeyMatches,
  publicKeyPem,
  readPrivateKeyFile,
} from './keys.js';
import { RsaCryptor } from './rsa-cryptor.js';

let pem: string;
let key: KeyObject;
let dir: string;

beforeAll(async () => {
  pem = await generatePrivateKeyPem(); // 4096 bits, once for this file
  key = loadPrivateKey(pem);
  dir = await mkdtemp(join(tmpdir(), 'federa-keys-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('key generation and loading', () => {
  it('generates a 4096-bit RSA key with exponent 65537 as PKCS#1 PEM', () => {
    expect(pem.startsWith('-----BEGIN RSA PRIVATE KEY-----\n')).toBe(true);
    expect(pem.endsWith('-----END RSA PRIVATE KEY-----\n')).toBe(true);
    expect(key.asymmetricKeyDetails).toMatchObject({ modulusLength: 4096, publicExponent: 65537n });
  });

  it('loads PKCS#8 PEM too', () => {
    const pkcs8 = key.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(pkcs8).toContain('-----BEGIN PRIVATE KEY-----');
    expect(publicKeyBase64(loadPrivateKey(pkcs8))).toBe(publicKeyBase64(key));
  });

  it('refuses passphrase-protected, non-RSA and garbage keys with a clear message', () => {
    const encrypted = key
      .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'x' })
      .toString();
    expect(() => loadPrivateKey(encrypted)).toThrow(/protected by a passphrase/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    expect(() => loadPrivateKey(ec)).toThrow(/is a ec key; end-to-end encryption needs an RSA key/);
    expect(() => loadPrivateKey('not a key')).toThrow(EncryptionError);
    expect(() => loadPrivateKey('not a key')).toThrow(/not a readable PEM private key/);
  });

  it('writes a key file as PKCS#1 with mode 0600, refuses to overwrite, and reads it back', async () => {
    const path = join(dir, 'private_key.pem');
    await writeFile(join(dir, 'pkcs8.pem'), key.export({ type: 'pkcs8', format: 'pem' }));
    const created = await createPrivateKeyFile(path, { modulusBits: 2048 });
    const text = await readFile(path, 'utf8');
    expect(text.startsWith('-----BEGIN RSA PRIVATE KEY-----')).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    await expect(createPrivateKeyFile(path, { modulusBits: 2048 })).rejects.toThrow(/EEXIST/);
    expect(publicKeyBase64(await readPrivateKeyFile(path))).toBe(publicKeyBase64(created));
    expect(publicKeyBase64(await readPrivateKeyFile(join(dir, 'pkcs8.pem')))).toBe(publicKeyBase64(key));
    const cryptor = await RsaCryptor.fromFile(path);
    expect(cryptor.keyBlockBytes).toBe(256);
  });

  it('names the path when a key file cannot be read', async () => {
    await expect(readPrivateKeyFile(join(dir, 'missing.pem'))).rejects.toThrow(
      /cannot read the private key file .*missing\.pem/,
    );
    await writeFile(join(dir, 'bad.pem'), 'garbage');
    await expect(readPrivateKeyFile(join(dir, 'bad.pem'))).rejects.toThrow(
      /bad\.pem: the private key is not a readable PEM/,
    );
  });
});

describe('public key wire form', () => {
  it('is SubjectPublicKeyInfo PEM with 64-character lines and a trailing newline', () => {
    const text = publicKeyPem(key);
    const lines = text.split('\n');
    expect(lines[0]).toBe('-----BEGIN PUBLIC KEY-----');
    expect(lines.at(-2)).toBe('-----END PUBLIC KEY-----');
    expect(lines.at(-1)).toBe('');
    const body = lines.slice(1, -2);
    for (const line of body.slice(0, -1)) expect(line).toHaveLength(64);
    expect(body.at(-1)!.length).toBeLessThanOrEqual(64);
  });

  it('is standard padded base64 of the whole PEM text', () => {
    const b64 = publicKeyBase64(key);
    expect(b64).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(b64.length % 4).toBe(0);
    expect(b64.length).toBeGreaterThan(1000);
    expect(b64.length).toBeLessThan(1100);
    expect(Buffer.from(b64, 'base64').toString()).toBe(publicKeyPem(key));
    expect(publicKeyPem(publicKeyFromBase64(b64))).toBe(publicKeyPem(key));
  });

  it('publicKeyMatches compares byte for byte', () => {
    const b64 = publicKeyBase64(key);
    expect(publicKeyMatches(b64, key)).toBe(true);
    expect(publicKeyMatches(b64.replace(/=+$/, ''), key)).toBe(true); // lenient decode, same bytes
    expect(publicKeyMatches(Buffer.from(publicKeyPem(key).trimEnd()).toString('base64'), key)).toBe(false);
    expect(
      publicKeyMatches(Buffer.from(publicKeyPem(key).replace(/\n/g, '\r\n')).toString('base64'), key),
    ).toBe(false);
    const other = createPrivateKey(
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }),
    );
    expect(publicKeyMatches(b64, other)).toBe(false);
    expect(publicKeyMatches('', key)).toBe(false);
    expect(publicKeyMatches(null, key)).toBe(false);
    expect(publicKeyMatches(undefined, key)).toBe(false);
  });

  it('publicKeyFromBase64 refuses a private key PEM and non-PEM data', () => {
    expect(() => publicKeyFromBase64(Buffer.from(pem).toString('base64'))).toThrow(
      expect.objectContaining({ reason: 'public-key-invalid' }),
    );
    expect(() => publicKeyFromBase64('   ')).toThrow(
      expect.objectContaining({ reason: 'public-key-missing' }),
    );
  });
});
