/**
 * Reading a run's output as a stream, in Node.js (docs/large-results.md): a 200 MB output is downloaded, checked
 * against its checksum and decrypted a piece at a time, never held whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DummyCryptor, decryptingStream } from '@federa/common';

import { FederaClientError } from './errors.js';
import type { UserClient } from './user-client.js';

/** How much of the text is looked at to tell an encrypted output (`EK$IV$…`) from a base64 one. */
const PEEK_CHARS = 4096;

/** The text of the output, checked at its end against the server's SHA-256 of it. */
async function* checkedText(client: UserClient, id: number): AsyncGenerator<Buffer> {
  const { size, sha256, stream } = await client.result.openOutput(id);
  const hash = createHash('sha256');
  let received = 0;
  try {
    for await (const chunk of Readable.fromWeb(stream as never) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      received += chunk.length;
      yield chunk;
    }
  } catch (error) {
    if (error instanceof FederaClientError) throw error;
    // The connection ended in the middle (a server that stopped or crashed, a cut link): fetch says TypeError.
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new FederaClientError(
      `The output of result ${id} was cut short after ${received} of ${size} bytes (${cause?.code ?? cause?.message ?? (error as Error).message}); read it again.`,
      { cause: error },
    );
  }
  const got = hash.digest('hex');
  if (sha256 !== '' && got !== sha256)
    throw new FederaClientError(
      `The output of result ${id} arrived altered or cut short (SHA-256 ${got}, the server's is ${sha256}); read it again.`,
    );
}

/**
 * The plaintext bytes of the output of result `id`, as a stream: decrypted with the key given to `setupEncryption`
 * (encrypted collaborations) or base64-decoded. Fails with a FederaClientError when the text does not arrive whole.
 */
export function readResultOutput(client: UserClient, id: number): Readable {
  async function* plain(): AsyncGenerator<Buffer> {
    const text = checkedText(client, id);
    const head: Buffer[] = [];
    let headChars = 0;
    let next = await text.next();
    while (!next.done && headChars < PEEK_CHARS) {
      head.push(next.value);
      headChars += next.value.length;
      next = await text.next();
    }
    const first = Buffer.concat(head);
    const encrypted = first.subarray(0, PEEK_CHARS).includes('$');
    const cryptor = encrypted ? client.cryptor : new DummyCryptor();
    if (encrypted && !cryptor?.encrypted)
      throw new FederaClientError(
        'This output is encrypted: call setupEncryption(privateKeyPath) with the private key of the organization ' +
          'that created the task, then read it again.',
      );
    const rest = next;
    async function* all(): AsyncGenerator<Buffer> {
      yield first;
      if (!rest.done) yield rest.value;
      for await (const chunk of { [Symbol.asyncIterator]: () => text }) yield chunk;
    }
    const decrypt: Transform = decryptingStream(cryptor!);
    const source = Readable.from(all());
    source.on('error', (error) => decrypt.destroy(error));
    yield* source.pipe(decrypt) as AsyncIterable<Buffer>;
  }
  return Readable.from(plain(), { objectMode: false });
}

/**
 * Writes the plaintext output of result `id` to the file `path`, as it comes; the file appears only once the output
 * arrived whole and decrypted (a temporary file beside it until then). Returns the number of bytes written.
 */
export async function saveResultOutput(client: UserClient, id: number, path: string): Promise<number> {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.part`;
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(readResultOutput(client, id), count, createWriteStream(temporary, { mode: 0o600 }));
    await rename(temporary, path);
    return size;
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
