import { describe, expect, it } from 'vitest';

import { deserializePayload, payloadFormat, serializePayload } from './payload.js';

describe('payload', () => {
  it('writes JSON values as json. + JSON and reads them back', () => {
    const value = { method: 'average', kwargs: { column: 'age' }, master: false };
    const bytes = serializePayload(value);
    expect(bytes.toString('utf8')).toBe('json.{"method":"average","kwargs":{"column":"age"},"master":false}');
    expect(deserializePayload(bytes)).toEqual(value);
  });

  it('keeps bytes as they are', () => {
    const raw = Uint8Array.from([0x80, 0x04, 0x95, 1, 2, 3]);
    expect([...serializePayload(raw)]).toEqual([...raw]);
    const out = deserializePayload(raw);
    expect(Buffer.isBuffer(out)).toBe(true);
    expect([...(out as Buffer)]).toEqual([...raw]);
  });

  it('recognises the format prefix case-insensitively and ignores pickles', () => {
    expect(payloadFormat(Buffer.from('JSON.[1]'))).toBe('json');
    expect(deserializePayload(Buffer.from('JSON.[1,2]'))).toEqual([1, 2]);
    expect(payloadFormat(Buffer.from('pickle.\x80\x04'))).toBe('pickle');
    expect(payloadFormat(Uint8Array.from([0x80, 0x04, 0x2e]))).toBeNull();
    expect(payloadFormat(Buffer.from('averyveryverylongword.x'))).toBeNull();
  });

  it('reads no bytes (a run without output) as null, not an empty buffer', () => {
    expect(deserializePayload(new Uint8Array(0))).toBeNull();
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => serializePayload(undefined)).toThrow(TypeError);
  });
});
