/**
 * A large output on its way to the server (docs/large-results.md): read from the run's output file, encrypted for the
 * task's initiator a piece at a time (the 3.x format, base64 when the collaboration is not encrypted), written next
 * to it and hashed on the way, so that the node never holds it whole and can upload it again after a cut or a
 * restart.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { encryptingStream, type Cryptor } from '@federa/common';

/** An output encrypted into a file, named by the SHA-256 and size of that file. */
export interface SealedOutput {
  readonly file: string;
  readonly sha256: string;
  readonly size: number;
}

/** Encrypts the file `plain` into `sealed` for `recipientPublicKey`. */
export async function sealOutput(
  cryptor: Cryptor,
  recipientPublicKey: string,
  plain: string,
  sealed: string,
): Promise<SealedOutput> {
  const hash = createHash('sha256');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(
    createReadStream(plain, { highWaterMark: 1024 * 1024 }),
    encryptingStream(cryptor, recipientPublicKey),
    measure,
    createWriteStream(sealed, { mode: 0o600 }),
  );
  return { file: sealed, sha256: hash.digest('hex'), size };
}
