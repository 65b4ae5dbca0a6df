/**
 * `@federa/algorithm-tools` is what TypeScript algorithm images carry alone, so it loads nothing of
 * `@federa/common` but the payload-format rule (a module of its own) and keeps its own reading of container tokens.
 * This test holds both to `@federa/common`: the same bytes give the same format and body, read or refused by the
 * tools; the same tokens the same claims or the same refusal.
 */
import { decodeJwt, detectPayloadFormat } from '@federa/common';
import {
  containerIdentity,
  decodeJsonPayload,
  detectFormat,
  PayloadFormatError,
} from '@federa/algorithm-tools';
import { describe, expect, it } from 'vitest';

const PAYLOADS = [
  'json.[1,2]',
  'JSON.{"a":1}',
  'pickle.\x80\x04\x95',
  'Pickle.x',
  'xml.<a/>',
  'a1.x',
  '.json',
  'averyveryverylongword.x',
  '\x80\x04\x95\x10.',
  'no prefix',
  '',
];

describe('algorithm-tools reads payload prefixes by the common rule', () => {
  it.each(PAYLOADS)('%j', (raw) => {
    const bytes = Buffer.from(raw, 'latin1');
    const common = detectPayloadFormat(bytes);
    const tools = detectFormat(bytes);
    expect(tools.format).toBe(common.format);
    expect(Buffer.from(tools.body).toString('latin1')).toBe(Buffer.from(common.body).toString('latin1'));
    // Any format but JSON the tools refuse to read, naming it when it has a name.
    if (common.format === 'json') return;
    expect(() => decodeJsonPayload(bytes)).toThrow(PayloadFormatError);
    if (common.format !== 'legacy') expect(() => decodeJsonPayload(bytes)).toThrow(common.format);
  });
});

describe('algorithm-tools reads container tokens by the common rule', () => {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const identity = {
    node_id: 1,
    organization_id: 2,
    collaboration_id: 3,
    task_id: 4,
    image: 'img?>~',
    database: 'default',
  };

  it('finds the identity decodeJwt finds', () => {
    const token = `${part({ alg: 'HS256' })}.${part({ sub: identity })}.sig`;
    expect((decodeJwt(token).sub as typeof identity).image).toBe('img?>~');
    expect(containerIdentity(token)).toMatchObject({ nodeId: 1, taskId: 4, image: 'img?>~' });
  });

  it.each(['abc', 'a..c', `a.${part([1])}.c`, 'a.bm90IGpzb24.c'])('refuses %j as decodeJwt does', (token) => {
    expect(() => decodeJwt(token)).toThrow();
    expect(() => containerIdentity(token)).toThrow(/cannot be read/);
  });
});
