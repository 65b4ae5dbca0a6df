// Node's cryptor, by the Node entry's name: this test runs in Node, while the UI's type check resolves
// `@federa/common` to its browser entry.
import { RsaCryptor, generatePrivateKeyPem, publicKeyBase64 } from '@federa/common/node';
import { createPrivateKey } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';

import { BrowserRsaCryptor, aes256Ctr } from './browser-cryptor.js';
import { createCipheriv } from 'node:crypto';

// The node side of these tests is @federa/common's RsaCryptor (node:crypto), the code a node runs.
describe('browser encryption is byte-compatible with the node', () => {
  let pem: string;
  let node: RsaCryptor;
  let browser: BrowserRsaCryptor;
  beforeAll(async () => {
    pem = await generatePrivateKeyPem({ modulusBits: 2048 });
    node = new RsaCryptor(pem);
    browser = new BrowserRsaCryptor(pem, 'org.pem');
  });

  it('publishes the same public key as the node', () => {
    expect(browser.publicKeyBase64).toBe(publicKeyBase64(createPrivateKey(pem)));
    expect(browser.publicKeyBase64).toBe(node.publicKeyBase64);
  });

  it('an input encrypted in the browser is decrypted by the node', () => {
    const input = new TextEncoder().encode('json.{"method":"average","kwargs":{"column":"age"}}');
    const text = browser.encryptBytesToString(input, node.publicKeyBase64);
    expect(text.split('$')).toHaveLength(3);
    expect(new TextDecoder().decode(node.decryptStringToBytes(text))).toBe(
      'json.{"method":"average","kwargs":{"column":"age"}}',
    );
  });

  it('a result encrypted by the node is decrypted in the browser', () => {
    const output = new TextEncoder().encode('json.{"average": 47.25, "count": 140}');
    const text = node.encryptBytesToString(output, browser.publicKeyBase64);
    expect(new TextDecoder().decode(browser.decryptStringToBytes(text))).toBe(
      'json.{"average": 47.25, "count": 140}',
    );
  });

  it('reads PKCS#8 keys as well as PKCS#1', () => {
    const pkcs8 = createPrivateKey(pem).export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(new BrowserRsaCryptor(pkcs8).publicKeyBase64).toBe(node.publicKeyBase64);
  });

  it('AES-CTR carries into the whole 128-bit counter as OpenSSL does', () => {
    const key = new Uint8Array(32).fill(7);
    const iv = new Uint8Array(16).fill(0xff); // the first increment wraps every byte
    iv[0] = 0x12;
    const data = new Uint8Array(80).map((_, i) => i);
    const openssl = createCipheriv('aes-256-ctr', key, iv);
    const expected = Buffer.concat([openssl.update(data), openssl.final()]);
    expect(Buffer.from(aes256Ctr(key, iv, data)).equals(expected)).toBe(true);
  });

  it('refuses a message for another key with the documented message, and a non-key file', async () => {
    const other = new RsaCryptor(await generatePrivateKeyPem({ modulusBits: 2048 }));
    const forOther = node.encryptBytesToString(new Uint8Array([1, 2, 3]), other.publicKeyBase64);
    expect(() => browser.decryptStringToBytes(forOther)).toThrow(/does not decrypt to a 32-byte AES key/);
    expect(() => browser.decryptStringToBytes('abc')).toThrow(/three base64 parts/);
    expect(() => new BrowserRsaCryptor('hello', 'notes.txt')).toThrow(
      /notes.txt is not an unencrypted PEM RSA/,
    );
  });
});
