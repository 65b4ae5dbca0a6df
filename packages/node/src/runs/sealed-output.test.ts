import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DummyCryptor, RsaCryptor, generatePrivateKeyPem } from '@federa/common';

import { sealOutput } from './sealed-output.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-sealed-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('sealOutput', () => {
  it('encrypts an output file for the initiator into a file named by its checksum and size', async () => {
    const initiator = new RsaCryptor(await generatePrivateKeyPem({ modulusBits: 2048 }));
    const plain = randomBytes(3 * 1024 * 1024 + 1);
    await writeFile(join(dir, 'output'), plain);
    const sealed = await sealOutput(new DummyCryptor(), '', join(dir, 'output'), join(dir, 'plain.b64'));
    expect(await readFile(sealed.file, 'latin1')).toBe(plain.toString('base64'));
    const node = new RsaCryptor(await generatePrivateKeyPem({ modulusBits: 2048 }));
    const enc = await sealOutput(
      node,
      initiator.publicKeyBase64,
      join(dir, 'output'),
      join(dir, 'output.sealed'),
    );
    const text = await readFile(enc.file);
    expect(enc.size).toBe(text.length);
    expect(enc.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(initiator.decryptStringToBytes(text.toString('latin1')).equals(plain)).toBe(true);
  });
});
