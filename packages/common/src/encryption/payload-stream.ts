/**
 * The payload format of docs/encryption.md, a piece at a time: a result of hundreds of MB is encrypted on its way
 * from the output file to the server, and decrypted on its way from the server to a file, without being held whole
 * (docs/encryption.md#streams). The bytes are those of `encryptBytesToString`; `decryptingStream` reads what
 * `encryptBytesToString` or `encryptingStream` made.
 */
import { Transform, type TransformCallback } from 'node:stream';
import type { Decipher } from 'node:crypto';

import type { Cryptor } from './cryptor.js';
import { EncryptionError } from './errors.js';
import { SEPARATOR, startMessage } from './message-key.js';

/** The longest first two parts accepted (an 8192-bit key block and its IV take 1,400 characters). */
const MAX_HEADER_CHARS = 4096;

/** Standard base64 of a stream: whole groups of 3 bytes as they come, the rest (and the padding) at the end. */
class Base64Encoder {
  #rest = Buffer.alloc(0);

  push(bytes: Buffer): string {
    const all = this.#rest.length ? Buffer.concat([this.#rest, bytes]) : bytes;
    const whole = all.length - (all.length % 3);
    this.#rest = Buffer.from(all.subarray(whole));
    return all.subarray(0, whole).toString('base64');
  }

  end(): string {
    return this.#rest.toString('base64');
  }
}

/** Lenient base64 of a stream (as decodeBase64Lenient): characters outside the alphabet are skipped, `=` ends it. */
class Base64Decoder {
  #rest = '';
  #ended = false;

  push(text: string): Buffer {
    if (this.#ended) return Buffer.alloc(0);
    const eq = text.indexOf('=');
    if (eq !== -1) this.#ended = true;
    const data = this.#rest + (eq === -1 ? text : text.slice(0, eq)).replace(/[^A-Za-z0-9+/]/g, '');
    const whole = data.length - (data.length % 4);
    this.#rest = data.slice(whole);
    return Buffer.from(data.slice(0, whole), 'base64');
  }

  end(): Buffer {
    if (this.#rest.length % 4 === 1)
      throw new EncryptionError(
        'malformed-ciphertext',
        'the ciphertext (third part) is not valid base64: its data characters cannot encode whole bytes',
      );
    return Buffer.from(this.#rest, 'base64');
  }
}

/**
 * A stream that turns payload bytes into the text `cryptor.encryptBytesToString` would make of them, for the
 * holder of `recipientPublicKeyBase64` (ignored by an unencrypted collaboration's cryptor).
 * @throws EncryptionError at once when the recipient key is empty or invalid (encrypted mode).
 */
export function encryptingStream(cryptor: Cryptor, recipientPublicKeyBase64: string): Transform {
  const start = cryptor.encrypted ? startMessage(recipientPublicKeyBase64) : undefined;
  const base64 = new Base64Encoder();
  let header = start?.header ?? '';
  const out = (text: string): string => {
    const all = header + text;
    header = '';
    return all;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      done(null, out(base64.push(start ? start.cipher.update(chunk) : chunk)));
    },
    flush(done: TransformCallback) {
      const last = start ? base64.push(start.cipher.final()) : '';
      done(null, out(last + base64.end()));
    },
  });
}

/** What `decryptingStream` needs of a cryptor: RsaCryptor's decipher of a message's first two parts. */
interface StreamDecipher {
  decipherFor(keyBlockPart: string, ivPart: string): Decipher;
}

const hasDecipher = (cryptor: Cryptor): cryptor is Cryptor & StreamDecipher =>
  typeof (cryptor as Partial<StreamDecipher>).decipherFor === 'function';

/**
 * A stream that turns the text of an encrypted (or, unencrypted collaboration: base64) payload back into its bytes.
 * Errors are `EncryptionError`s, as for `decryptStringToBytes`.
 */
export function decryptingStream(cryptor: Cryptor): Transform {
  if (cryptor.encrypted && !hasDecipher(cryptor))
    throw new TypeError('this cryptor cannot decrypt streams (use RsaCryptor)');
  const base64 = new Base64Decoder();
  let header: string | undefined = cryptor.encrypted ? '' : undefined;
  let decipher: Decipher | undefined;
  const plain = (bytes: Buffer): Buffer => (decipher ? decipher.update(bytes) : bytes);
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      try {
        let text = chunk.toString('latin1');
        if (header !== undefined) {
          header += text;
          const first = header.indexOf(SEPARATOR);
          const second = first === -1 ? -1 : header.indexOf(SEPARATOR, first + 1);
          if (second === -1) {
            if (header.length > MAX_HEADER_CHARS) throw noHeader(header);
            return done();
          }
          decipher = (cryptor as Cryptor & StreamDecipher).decipherFor(
            header.slice(0, first),
            header.slice(first + 1, second),
          );
          text = header.slice(second + 1);
          header = undefined;
        }
        done(null, plain(base64.push(text)));
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        if (header !== undefined) throw noHeader(header);
        const last = plain(base64.end());
        done(null, decipher ? Buffer.concat([last, decipher.final()]) : last);
      } catch (error) {
        done(error as Error);
      }
    },
  });
}

function noHeader(header: string): EncryptionError {
  const parts = header.slice(0, MAX_HEADER_CHARS + 1).split(SEPARATOR).length;
  return new EncryptionError(
    'malformed-ciphertext',
    `encrypted data must be three base64 parts separated by "$" (key block, IV, ciphertext); got ${parts} part(s)` +
      (parts === 1 ? ' (is this collaboration unencrypted?)' : ''),
  );
}
