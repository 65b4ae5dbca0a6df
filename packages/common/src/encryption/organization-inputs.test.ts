import { describe, expect, it } from 'vitest';
import { DummyCryptor } from './dummy-cryptor.js';
import { EncryptionError } from './errors.js';
import { generatePrivateKeyPem, loadPrivateKey } from './keys.js';
import { encryptForOrganizations } from './organization-inputs.js';
import { RsaCryptor } from './rsa-cryptor.js';

const keyed = async (): Promise<RsaCryptor> =>
  new RsaCryptor(loadPrivateKey(await generatePrivateKeyPem({ modulusBits: 2048 })));

describe('encryptForOrganizations', () => {
  it('encrypts each input for its organization, asking for the keys one after the other', async () => {
    const [a, b] = await Promise.all([keyed(), keyed()]);
    const asked: number[] = [];
    const keys = new Map([
      [1, a.publicKeyBase64],
      [2, b.publicKeyBase64],
    ]);
    const out = await encryptForOrganizations(
      a,
      [
        { id: 1, input: Buffer.from('for one') },
        { id: 2, input: Buffer.from('for two') },
      ],
      async (id) => {
        asked.push(id);
        return { publicKey: keys.get(id) ?? '' };
      },
    );
    expect(asked).toEqual([1, 2]);
    expect(out.map((o) => o.id)).toEqual([1, 2]);
    expect(Buffer.from(a.decryptStringToBytes(out[0]!.input)).toString()).toBe('for one');
    expect(Buffer.from(b.decryptStringToBytes(out[1]!.input)).toString()).toBe('for two');
    expect(() => a.decryptStringToBytes(out[1]!.input)).toThrow(EncryptionError);
  });

  it('gives base64 in an unencrypted collaboration without asking for any key', async () => {
    const out = await encryptForOrganizations(
      new DummyCryptor(),
      [{ id: 3, input: Buffer.from('x') }],
      () => {
        throw new Error('no key should be asked for');
      },
    );
    expect(out).toEqual([{ id: 3, input: Buffer.from('x').toString('base64') }]);
  });

  it('names the organization whose key is missing', async () => {
    const error = await encryptForOrganizations(
      await keyed(),
      [{ id: 9, input: Buffer.from('x') }],
      async () => ({
        publicKey: '',
        name: 'Keyless',
      }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EncryptionError);
    expect((error as Error).message).toMatch(/^cannot encrypt the input for organization 9 \("Keyless"\): /);
  });
});
