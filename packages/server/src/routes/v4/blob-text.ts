/**
 * What a vantage6 4.x client, node or algorithm uploads to `/blobstream` as a run's input or output, turned into the
 * text a run's `input` or `result` holds (docs/encryption.md): Federa's nodes and 3.x clients read that text.
 *
 * In an encrypted collaboration 4.x uploads `<key>$<iv>$<message>` with the message as raw bytes, where the text
 * has it in base64; in an unencrypted one it uploads the base64 text itself, which has no `$`. So the bytes up to
 * the second `$` pass as they are, and what follows is base64-encoded as it streams, never held whole.
 */

const SEPARATOR = 0x24; // '$'

/** The encrypted header is two base64 fields of a few hundred characters; past this, there is none. */
const HEADER_MAX = 64 * 1024;

/** The bytes of `source` as the text of a run's input or output. */
export async function* asRunText(source: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  let separators = 0;
  let body = false; // past the header: base64 from here
  let carry = Buffer.alloc(0); // bytes of the message not yet a multiple of 3
  for await (const piece of source) {
    let chunk = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    if (!body) {
      if (separators < 0) {
        yield chunk; // no header: the text as it came
        continue;
      }
      let at = head.length;
      head = Buffer.concat([head, chunk]);
      for (; at < head.length && separators < 2; at += 1) if (head[at] === SEPARATOR) separators += 1;
      if (separators < 2) {
        if (head.length > HEADER_MAX) {
          separators = -1;
          yield head;
          head = Buffer.alloc(0);
        }
        continue;
      }
      body = true;
      yield head.subarray(0, at);
      chunk = head.subarray(at);
      head = Buffer.alloc(0);
    }
    const all = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const whole = all.length - (all.length % 3);
    carry = Buffer.from(all.subarray(whole));
    if (whole > 0) yield Buffer.from(all.subarray(0, whole).toString('base64'), 'latin1');
  }
  if (!body) {
    if (head.length > 0) yield head;
    return;
  }
  if (carry.length > 0) yield Buffer.from(carry.toString('base64'), 'latin1');
}
