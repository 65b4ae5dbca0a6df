import { describe, expect, it } from 'vitest';
import { detectPayloadFormat } from './payload-format.js';

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString('latin1');

describe('detectPayloadFormat', () => {
  it('reads the prefix case-insensitively and gives the body after it', () => {
    const json = detectPayloadFormat(Buffer.from('JSON.[1,2]'));
    expect(json.format).toBe('json');
    expect(text(json.body)).toBe('[1,2]');
    expect(detectPayloadFormat(Buffer.from('pickle.\x80\x04')).format).toBe('pickle');
    expect(detectPayloadFormat(Buffer.from('xml.<a/>')).format).toBe('xml');
  });

  it('takes anything without a letters-only name and a dot in the first 10 bytes as legacy, whole', () => {
    for (const raw of ['\x80\x04\x95.', 'averyveryverylongword.x', 'a1.x', '.json', 'no dot at all', '']) {
      const { format, body } = detectPayloadFormat(Buffer.from(raw, 'latin1'));
      expect(format, raw).toBe('legacy');
      expect(text(body)).toBe(raw);
    }
  });
});
