import { createCipheriv, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { text as readText, buffer as readBuffer } from 'node:stream/consumers';

import { beforeAll, describe, expect, it, vi } from 'vitest';

import { DummyCryptor } from './dummy-cryptor.js';
import { EncryptionError } from './errors.js';
import { generatePrivateKeyPem, loadPrivateKey } from './keys.js';
import * as messageKey from './message-key.js';
import { decryptingStream, encryptingStream } from './payload-stream.js';
import { RsaCryptor } from './rsa-cryptor.js';

vi.mock('./message-key.js', async (original) => {
  const actual = await original<typeof messageKey>();
  return { ...actual, startMessage: vi.fn(actual.startMessage) };
});

let cryptor: RsaCryptor;
let other: RsaCryptor;

beforeAll(async () => {
  const [a, b] = await Promise.all([
    generatePrivateKeyPem({ modulusBits: 2048 }),
    generatePrivateKeyPem({ modulusBits: 2048 }),
  ]);
  cryptor = new RsaCryptor(loadPrivateKey(a));
  other = new RsaCryptor(loadPrivateKey(b));
});

/** `data` cut into pieces of the given sizes, over and over. */
function pieces(data: Buffer, sizes: number[]): Readable {
  const out: Buffer[] = [];
  for (let at = 0, i = 0; at < data.length; i += 1) {
    const size = sizes[i % sizes.length]!;
    out.push(data.subarray(at, at + size));
    at += size;
  }
  return Readable.from(out);
}

async function encryptStreamed(c: RsaCryptor | DummyCryptor, data: Buffer, sizes: number[]): Promise<string> {
  const encrypt = encryptingStream(c, cryptor.publicKeyBase64);
  const [, text] = await Promise.all([pipeline(pieces(data, sizes), encrypt), readText(encrypt)]);
  return text;
}

async function decryptStreamed(c: RsaCryptor | DummyCryptor, text: string, sizes: number[]): Promise<Buffer> {
  const decrypt = decryptingStream(c);
  const [, bytes] = await Promise.all([
    pipeline(pieces(Buffer.from(text, 'latin1'), sizes), decrypt),
    readBuffer(decrypt),
  ]);
  return bytes;
}

describe('streams of the encrypted format', () => {
  it.each([0, 1, 2, 3, 1000, 65_537])('a streamed %i-byte payload decrypts whole, and back', async (n) => {
    const data = randomBytes(n);
    const text = await encryptStreamed(cryptor, data, [1, 7, 4096, 2]);
    expect(text.split('$')).toHaveLength(3);
    expect(cryptor.decryptStringToBytes(text).equals(data)).toBe(true);
    const whole = cryptor.encryptBytesToString(data, cryptor.publicKeyBase64);
    expect((await decryptStreamed(cryptor, whole, [1, 5, 333, 4096])).equals(data)).toBe(true);
  });

  it('gives the bytes encryptBytesToString gives for the same key and IV', async () => {
    const key = randomBytes(32);
    const iv = randomBytes(16);
    const fixed = () => ({ header: 'EK$IV$', cipher: createCipheriv('aes-256-ctr', key, iv) });
    vi.mocked(messageKey.startMessage).mockImplementation(fixed);
    try {
      const data = randomBytes(100_001);
      const whole = cryptor.encryptBytesToString(data, cryptor.publicKeyBase64);
      expect(await encryptStreamed(cryptor, data, [3, 1, 65_536, 10])).toBe(whole);
    } finally {
      vi.mocked(messageKey.startMessage).mockReset();
      vi.mocked(messageKey.startMessage).mockImplementation(
        (await vi.importActual<typeof messageKey>('./message-key.js')).startMessage,
      );
    }
  });

  it('is plain base64 in an unencrypted collaboration', async () => {
    const data = randomBytes(10_000);
    const text = await encryptStreamed(new DummyCryptor(), data, [1, 2, 4000]);
    expect(text).toBe(data.toString('base64'));
    expect((await decryptStreamed(new DummyCryptor(), text, [3, 1, 999])).equals(data)).toBe(true);
  });

  it('refuses a payload encrypted for another key, and one without its two first parts', async () => {
    const text = await encryptStreamed(cryptor, randomBytes(100), [50]);
    const refused = await decryptStreamed(other, text, [10]).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EncryptionError);
    expect((refused as EncryptionError).reason).toBe('key-block-invalid');
    const bare = await decryptStreamed(cryptor, 'QUJD', [2]).catch((e: unknown) => e);
    expect((bare as EncryptionError).message).toContain('is this collaboration unencrypted?');
    const endless = await decryptStreamed(cryptor, 'A'.repeat(10_000), [100]).catch((e: unknown) => e);
    expect((endless as EncryptionError).reason).toBe('malformed-ciphertext');
  });
});
