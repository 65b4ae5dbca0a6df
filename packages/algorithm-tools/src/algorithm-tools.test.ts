import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { databaseUri, parseCsv } from './data.js';
import { decodeJsonPayload, detectFormat, encodeJsonPayload, PayloadFormatError } from './payload.js';
import { decodeResults } from './sub-task-results.js';
import { runAlgorithm } from './wrapper.js';

describe('payloads', () => {
  it('detects the format prefix and reads JSON', () => {
    expect(detectFormat(Buffer.from('json.{"a":1}')).format).toBe('json');
    expect(detectFormat(Buffer.from('PICKLE.\x80\x04')).format).toBe('pickle');
    expect(detectFormat(Buffer.from([0x80, 0x04, 0x95])).format).toBe('legacy');
    expect(decodeJsonPayload(encodeJsonPayload({ method: 'm', args: [1] }))).toEqual({
      method: 'm',
      args: [1],
    });
    expect(() => decodeJsonPayload(Buffer.from([0x80, 0x04]))).toThrow(PayloadFormatError);
  });

  it('names an unknown prefix as its format, as every reader does, and refuses to read it as JSON', () => {
    expect(detectFormat(Buffer.from('yaml.a: 1'))).toEqual({
      format: 'yaml',
      body: Buffer.from('a: 1'),
    });
    expect(() => decodeJsonPayload(Buffer.from('YAML.a: 1'))).toThrow(
      "the payload is in the unknown format 'yaml'; the TypeScript tools read 'json.' + JSON only",
    );
    expect(() => decodeJsonPayload(Buffer.from('pickle.\x80'))).toThrow(/is a pickle \('pickle\.' prefix\)/);
    // More than ten bytes before the dot, or not letters only: no prefix at all, so the legacy pickle.
    expect(detectFormat(Buffer.from('abcdefghijk.x')).format).toBe('legacy');
    expect(detectFormat(Buffer.from('js0n.x')).format).toBe('legacy');
    // A sub-task's output in an unknown format is handed over as its bytes, not refused.
    const yaml = Buffer.from('yaml.a: 1');
    const [result] = decodeResults([{ id: 1, organization: 2, result: yaml.toString('base64') }]);
    expect(result?.output).toEqual(yaml);
  });
});

describe('data', () => {
  it('parses CSV with quotes, numbers and empty cells', () => {
    expect(parseCsv('name,age,w\r\n"Doe, J",30,\n"say ""hi""",4.5,7\n')).toEqual([
      { name: 'Doe, J', age: 30, w: null },
      { name: 'say "hi"', age: 4.5, w: 7 },
    ]);
  });

  it('picks the labelled URI, else DATABASE_URI', () => {
    expect(
      databaseUri({
        USER_REQUESTED_DATABASE_LABEL: 'extra',
        EXTRA_DATABASE_URI: '/mnt/data/e.csv',
        DATABASE_URI: '/d',
      }),
    ).toBe('/mnt/data/e.csv');
    expect(databaseUri({ DATABASE_URI: '/d' })).toBe('/d');
  });
});

describe('wrapper', () => {
  const setUp = (input: string): NodeJS.ProcessEnv => {
    const dir = mkdtempSync(join(tmpdir(), 'federa-tools-'));
    writeFileSync(join(dir, 'input'), input);
    writeFileSync(join(dir, 'output'), '');
    writeFileSync(join(dir, 'data.csv'), 'age\n10\n20\n');
    return {
      INPUT_FILE: join(dir, 'input'),
      OUTPUT_FILE: join(dir, 'output'),
      DATABASE_URI: join(dir, 'data.csv'),
    };
  };

  it('calls RPC_<method> with the data and writes json output', async () => {
    const env = setUp('json.{"method":"total","args":["age"],"kwargs":{}}');
    const code = await runAlgorithm(
      {
        RPC_total: (data: { age: number }[], col: string) =>
          data.reduce((a, r) => a + (r as Record<string, number>)[col]!, 0),
      },
      { env },
    );
    expect(code).toBe(0);
    expect(readFileSync(env.OUTPUT_FILE!, 'utf8')).toBe('json.30');
  });

  it('exits 1 with a readable message for an unknown method', async () => {
    const env = setUp('json.{"method":"nope"}');
    expect(await runAlgorithm({}, { env })).toBe(1);
  });
});
