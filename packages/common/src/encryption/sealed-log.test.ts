/** Sealed run logs (docs/run-logs.md#encrypted-collaborations): framing, appending, opening, and a wrong key. */
import { beforeAll, describe, expect, it } from 'vitest';

import { EncryptionError } from './errors.js';
import { generatePrivateKeyPem, loadPrivateKey } from './keys.js';
import { RsaCryptor } from './rsa-cryptor.js';
import { DummyCryptor } from './dummy-cryptor.js';
import {
  SEALED_LOG_HEADER,
  SealedLogOpener,
  isSealedBatch,
  isSealedLog,
  openSealedLog,
  sealLog,
  sealLogPiece,
} from './sealed-log.js';

let mine: RsaCryptor;
let other: RsaCryptor;

beforeAll(async () => {
  mine = new RsaCryptor(loadPrivateKey(await generatePrivateKeyPem({ modulusBits: 2048 })));
  other = new RsaCryptor(loadPrivateKey(await generatePrivateKeyPem({ modulusBits: 2048 })));
});

describe('sealed logs', () => {
  it('appends pieces as whole lines that hold no plain text and opens them back, notes of the server included', () => {
    const pieces = ['rows: 42\n', 'patient héllo ✓\nsecond line', '\n'];
    const sealed = pieces.map((p) => sealLogPiece(mine, p, mine.publicKeyBase64));
    for (const s of sealed) expect(isSealedBatch(s)).toBe(true);
    expect(isSealedBatch(sealed.join(''))).toBe(true);
    const note = '[federa server] the live log of this run reached 1024 characters\n';
    const log = SEALED_LOG_HEADER + sealed.join('') + note;
    expect(log).not.toContain('rows');
    expect(log).not.toContain('patient');
    expect(isSealedLog(log)).toBe(true);
    expect(openSealedLog(mine, log)).toBe(pieces.join('') + note);
  });

  it('opens a growing log piece by piece, decrypting only what was added, and starts over when it was replaced', () => {
    const opener = new SealedLogOpener(mine);
    let log = SEALED_LOG_HEADER;
    expect(opener.open(log)).toBe('');
    log += sealLogPiece(mine, 'one\n', mine.publicKeyBase64);
    expect(opener.open(log)).toBe('one\n');
    log += sealLogPiece(mine, 'two\n', mine.publicKeyBase64);
    expect(opener.open(log)).toBe('one\ntwo\n');
    // The final report replaces the live log with the whole log as one piece.
    expect(opener.open(sealLog(mine, 'one\ntwo\nthree\n', mine.publicKeyBase64))).toBe('one\ntwo\nthree\n');
    expect(opener.open('plain log of a 3.x node\n')).toBe('plain log of a 3.x node\n');
  });

  it('says which line does not decrypt with a wrong key, and never shows plain text', () => {
    const log = sealLog(mine, 'secret rows\n', mine.publicKeyBase64);
    let error: unknown;
    try {
      openSealedLog(other, log);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EncryptionError);
    expect((error as Error).message).toMatch(
      /^line 2 of this run's log does not decrypt with this private key \(key-block-invalid\): the log is encrypted for the organization that created the task; use that organization's private key$/,
    );
  });

  it('refuses plain text as a sealed batch, and sealing without encryption', () => {
    expect(isSealedBatch('rows: 42\n')).toBe(false);
    expect(isSealedBatch('')).toBe(false);
    const piece = sealLogPiece(mine, 'x', mine.publicKeyBase64);
    expect(isSealedBatch(piece.slice(0, -1))).toBe(false);
    expect(isSealedBatch(piece + 'plain\n')).toBe(false);
    expect(() => sealLogPiece(new DummyCryptor(), 'x', '')).toThrow(/only in an encrypted collaboration/);
    expect(() => sealLogPiece(mine, 'x', '')).toThrow(EncryptionError);
  });
});
