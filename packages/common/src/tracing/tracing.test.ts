import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { validateConfig } from '../config/config-file.js';
import { TracingConfigSchema } from './config.js';
import { cleanTraceparent, formatTraceparent, parseTraceparent } from './traceparent.js';
import { Tracing } from './tracing.js';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('traceparent', () => {
  it('reads the W3C form and writes it back', () => {
    const parsed = parseTraceparent(VALID);
    expect(parsed).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      flags: 1,
    });
    expect(formatTraceparent(parsed!)).toBe(VALID);
    expect(cleanTraceparent(VALID.replace(/-01$/, '-00'))).toBe(VALID.replace(/-01$/, '-00'));
  });

  it('takes nothing else for a context: other lengths, upper case, version ff, all-zero ids, non-strings', () => {
    for (const bad of [
      undefined,
      null,
      7,
      ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
      '',
      VALID.toUpperCase(),
      `${VALID}-extra`,
      VALID.replace(/^00/, 'ff'),
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g',
      '00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01',
    ])
      expect(cleanTraceparent(bad), String(bad)).toBeNull();
  });
});

describe('the tracing key', () => {
  const schema = Type.Object(
    { tracing: Type.Optional(TracingConfigSchema) },
    { additionalProperties: false },
  );
  const check = (tracing: unknown) => () => validateConfig(schema, { tracing }, 'node.yaml');

  it('is turned on by an endpoint alone; absent, there is no tracing', () => {
    expect(check({ endpoint: 'http://collector:4318/v1/traces' })()).toEqual({
      tracing: { endpoint: 'http://collector:4318/v1/traces' },
    });
    expect(Tracing.fromConfig(undefined, { serviceName: 'federa-node' })).toBeNull();
  });

  it('refuses what is not an http(s) endpoint or a known field, naming the key', () => {
    expect(check({})).toThrow(/key 'tracing.endpoint': is required/);
    expect(check({ endpoint: 'ftp://collector/v1/traces' })).toThrow(/key 'tracing.endpoint'/);
    expect(check({ endpoint: 'http://collector:4318', sample: 1 })).toThrow(/key 'tracing.sample'/);
    expect(check({ endpoint: 'http://c:4318', headers: { 'bad name': 'x' } })).toThrow(
      /key 'tracing.headers.bad name'/,
    );
    expect(check({ endpoint: 'http://c:4318', interval_ms: 10 })).toThrow(/key 'tracing.interval_ms'/);
  });
});
