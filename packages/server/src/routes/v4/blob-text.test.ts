/** What a 4.x upload becomes as a run's input or output text: an encrypted message in base64, the rest as it came. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asRunText } from './blob-text.js';

/** `data` cut into pieces of `size` bytes, through asRunText, joined. */
async function text(data: Buffer, size: number): Promise<string> {
  const pieces = async function* () {
    for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
  };
  const out: Buffer[] = [];
  for await (const part of asRunText(pieces())) out.push(part);
  return Buffer.concat(out).toString('latin1');
}

describe('an upload as the text of a run', () => {
  it('keeps the header of an encrypted upload and gives its raw message in base64, however it is cut', async () => {
    const message = randomBytes(100_003);
    const data = Buffer.concat([Buffer.from('S0VZ$SVY=$', 'latin1'), message]);
    for (const size of [1, 2, 7, 4096, data.length])
      expect(await text(data, size)).toBe(`S0VZ$SVY=$${message.toString('base64')}`);
  });

  it('passes the base64 text of an unencrypted upload as it is', async () => {
    const data = Buffer.from(randomBytes(200_000).toString('base64'), 'latin1');
    expect(await text(data, 999)).toBe(data.toString('latin1'));
    expect(await text(Buffer.alloc(0), 10)).toBe('');
  });
});
