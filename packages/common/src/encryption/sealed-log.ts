/**
 * Sealed run logs (docs/run-logs.md#encrypted-collaborations): in an encrypted collaboration a node seals each piece
 * of a run's log for the organization that created the task, as it does the output, so the server stores and shows
 * only ciphertext, and appending a piece never touches the ones before. The stored log is text lines:
 *
 * - first {@link SEALED_LOG_HEADER} (written by the server before the first live piece, by the node in its report);
 * - then one line per piece, `sealed:` + the piece's UTF-8 bytes encrypted like a result (docs/encryption.md:
 *   `base64(EK)$base64(IV)$base64(C)`);
 * - any other line is a note of the server (e.g. the live log reached its cap), shown as it is.
 */
import type { Cryptor } from './cryptor.js';
import { EncryptionError } from './errors.js';

/** The first line of every sealed log; it tells a reader without a Federa client what the rest is. */
export const SEALED_LOG_HEADER =
  '[federa sealed log v1] encrypted for the organization that created the task; a Federa client with its private key shows it (docs/run-logs.md)\n';

/** How a line holding one sealed piece starts. */
export const SEALED_PIECE_PREFIX = 'sealed:';

const B64 = '[A-Za-z0-9+/]*={0,2}';
const PIECE_LINE = new RegExp(`^${SEALED_PIECE_PREFIX}${B64}\\$${B64}\\$${B64}$`);

/** Whether a stored log is sealed (starts with the header). */
export const isSealedLog = (log: string | null | undefined): log is string =>
  typeof log === 'string' && log.startsWith(SEALED_LOG_HEADER);

/** Whether `text` is nothing but whole sealed-piece lines (what a node may append to a sealed log). */
export function isSealedBatch(text: string): boolean {
  if (text === '' || !text.endsWith('\n')) return false;
  return text
    .slice(0, -1)
    .split('\n')
    .every((line) => PIECE_LINE.test(line));
}

/**
 * One piece of log sealed for the holder of `recipientPublicKeyBase64`: a whole line, newline included.
 * @throws EncryptionError when the key is missing or invalid; Error when `cryptor` is not the encrypted mode.
 */
export function sealLogPiece(cryptor: Cryptor, text: string, recipientPublicKeyBase64: string): string {
  if (!cryptor.encrypted) throw new Error('a log is sealed only in an encrypted collaboration');
  const sealed = cryptor.encryptBytesToString(Buffer.from(text, 'utf8'), recipientPublicKeyBase64);
  return `${SEALED_PIECE_PREFIX}${sealed}\n`;
}

/** A whole log sealed as one piece after the header (a node's final report). */
export const sealLog = (cryptor: Cryptor, text: string, recipientPublicKeyBase64: string): string =>
  SEALED_LOG_HEADER + (text === '' ? '' : sealLogPiece(cryptor, text, recipientPublicKeyBase64));

/**
 * Opens sealed logs with one private key. It remembers what it opened last, so reading a growing log again
 * decrypts only the pieces added since (a followed log is read many times).
 */
export class SealedLogOpener {
  readonly #cryptor: Cryptor;
  /** The sealed text opened so far (whole lines) and its plain text. */
  #raw = '';
  #plain = '';
  /** Lines in `#raw`. */
  #lines = 0;

  constructor(cryptor: Cryptor) {
    this.#cryptor = cryptor;
  }

  /**
   * The plain text of a log: a log that is not sealed is returned as it is.
   * @throws EncryptionError naming the piece when one does not decrypt with this key (e.g. another organization's).
   */
  open(log: string): string {
    if (!isSealedLog(log)) return log;
    if (!log.startsWith(this.#raw) || this.#raw === '') {
      this.#raw = SEALED_LOG_HEADER;
      this.#plain = '';
      this.#lines = 1;
    }
    const end = log.lastIndexOf('\n') + 1;
    if (end <= this.#raw.length) return this.#plain;
    let plain = this.#plain;
    let lines = this.#lines;
    for (const line of log.slice(this.#raw.length, end - 1).split('\n')) {
      lines++;
      if (!line.startsWith(SEALED_PIECE_PREFIX)) {
        plain += `${line}\n`;
        continue;
      }
      try {
        plain += this.#cryptor.decryptStringToBytes(line.slice(SEALED_PIECE_PREFIX.length)).toString('utf8');
      } catch (error) {
        const why = error instanceof EncryptionError ? error.reason : 'malformed-ciphertext';
        throw new EncryptionError(
          why,
          `line ${lines} of this run's log does not decrypt with this private key (${why}): the log is encrypted for the organization that created the task; use that organization's private key`,
          { cause: error },
        );
      }
    }
    this.#raw = log.slice(0, end);
    this.#plain = plain;
    this.#lines = lines;
    return plain;
  }
}

/** The plain text of one log (see {@link SealedLogOpener}). */
export const openSealedLog = (cryptor: Cryptor, log: string): string =>
  new SealedLogOpener(cryptor).open(log);
