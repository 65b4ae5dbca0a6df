import { describe, expect, it } from 'vitest';
import type { OutputDeclaration } from '@federa/common';

import { normaliseOutputPolicy } from '../../config/output-policy.js';
import { DATASHIELD_DEFAULTS, inspectOutput, suppressOutput } from '../disclosure.js';
import { gateOutput } from '../output-gate.js';
import { scannedInspection } from '../fast-inspect.js';
import { scanDeclared } from './scan-cells.js';

// The checks read from the bytes must say what the checks of the parsed output say, whenever the scan answers; and
// the scan must give up (leaving the parse to refuse) on anything that is not what it claims to be.

const table: OutputDeclaration = { kind: 'count_table', counts: 't' };
const model: OutputDeclaration = { kind: 'model_coefficients', coefficients: 'c', rows: 'n' };
const t = { ...DATASHIELD_DEFAULTS, maxLevels: 4 };

const bytes = (text: string) => Buffer.from(text, 'utf8');
const parsedVerdict = (text: string, d: OutputDeclaration) => inspectOutput(JSON.parse(text), d, t);

function agree(text: string, d: OutputDeclaration = table): void {
  const fast = scannedInspection(bytes(text), d, t);
  expect(fast, `the scan answers for ${text}`).toBeDefined();
  expect(fast).toEqual(parsedVerdict(text, d));
}

describe('checks read from the bytes', () => {
  it('agree with the parsed checks on tables that pass, fail, and nest', () => {
    agree('{"t": [5, 0, 12]}');
    agree('{"t": [5, 2, 1, 0]}');
    agree(
      ' {\n "x": {"deep": [1, {"a": null}, "s\\"q", true, false, -1.5e3]},\t"t" :\r\n{"m": [3, 2], "f": {"a": 1, "b": 40}} } ',
    );
    agree('{"t": 7}');
    agree('{"t": 2}');
    agree('{"t": []}');
    agree('{"t": [[], {}, [4]]}');
    agree('{"t": [1, 2, 3, 4, 5, 6]}'); // more levels than max_levels
    agree('{"t": {"caf\\u00e9": 2, "a\\"b": [2]}}');
    agree('{"t": [3.0, 1e1, 40]}');
    agree('{"t": [123456789012345678, 9]}');
    agree(`{"t": ${JSON.stringify(Array.from({ length: 500 }, (_, i) => (i % 7) * 3))}}`);
  });

  it('agree on model coefficients', () => {
    agree('{"c": [0.5, -1.25, 3e-2], "n": 100}', model);
    agree('{"n": 4, "c": {"a": 1, "b": 2}}', model);
    agree('{"c": [1, 2], "n": 0}', model);
  });

  it('give up, for the parse to refuse, on what is not JSON or not the declared shape', () => {
    for (const text of [
      '{"t": [1, 2,]}',
      '{"t": [01]}',
      '{"t": [1 2]}',
      '{"t": [3], }',
      '{"t": [3]} x',
      '[{"t": [3]}]',
      '{"t": [3], "t": [4]}',
      '{"u": [3]}',
      '{"t": [3.5]}',
      '{"t": [-3]}',
      '{"t": ["3"]}',
      '{"t": [null]}',
      '{"t": [1e400]}',
      '{"t": [[[[[[[[[1]]]]]]]]]}',
      '{"t": [3], "x": "a\u0001b"}',
      '{"t": [3], "x": "\\x"}',
      '{"t": [3], "x": tru}',
      '{"t": [3], "x": -}',
      '{"t": [3], "x": 1.}',
      '{"t": [3]',
      '\ufeff{"t": [3]}',
      '{"t": [3], "\\u00zz": 1}',
    ])
      expect(scannedInspection(bytes(text), table, t), text).toBeUndefined();
    expect(scannedInspection(bytes('{"c": [1], "n": 2.5}'), model, t)).toBeUndefined();
    expect(scannedInspection(bytes('{"c": [1], "n": [2]}'), model, t)).toBeUndefined();
    // Group means are left to the parse: their two fields must hold the same groups.
    expect(
      scannedInspection(bytes('{"m": [1], "k": [5]}'), { kind: 'group_means', means: 'm', counts: 'k' }, t),
    ).toBeUndefined();
  });

  it('name the places of small cells as the parsed checks do', () => {
    const read = scanDeclared(bytes('{"t": {"a\\/b": [4, 1], "c": {"d": 2}}}'), [
      { key: 't', as: 'cells', counts: true, below: 3 },
    ]);
    expect(read?.get('t')).toMatchObject({
      count: 3,
      small: [
        ['a/b', '1'],
        ['c', 'd'],
      ],
    });
  });

  it('agree with the parsed checks on random tables', () => {
    let seed = 7;
    const random = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % k;
    };
    const cell = (depth: number): unknown => {
      const r = random(10);
      if (depth < 3 && r === 0) return Array.from({ length: random(6) }, () => cell(depth + 1));
      if (depth < 3 && r === 1)
        return Object.fromEntries(Array.from({ length: random(6) }, (_, i) => [`k${i}`, cell(depth + 1)]));
      return random(3) === 0 ? random(4) : random(100000);
    };
    for (let k = 0; k < 300; k++) {
      const value = { x: random(2) ? [1, 'a'] : null, t: cell(0) };
      agree(random(2) ? JSON.stringify(value) : JSON.stringify(value, null, random(3)));
    }
  });
});

describe('suppression in place', () => {
  const policy = normaliseOutputPolicy(
    { on_failure: 'suppress', checks: { max_levels: null } } as never,
    't.yaml',
  )!;
  const thresholds = { ...DATASHIELD_DEFAULTS, maxLevels: null };
  /** What the parsed path writes: the result with its small cells null and the marks at the end. */
  const slow = (text: string) => {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const inspection = inspectOutput(parsed, table, thresholds);
    if (!inspection.ok) throw new Error(inspection.error);
    return suppressOutput(parsed, table, inspection.findings);
  };
  const fast = (text: string) => {
    const verdict = gateOutput(policy, bytes(`json.${text}`), table);
    if (verdict.kind !== 'pass') throw new Error(verdict.reason);
    return JSON.parse(verdict.output.subarray(5).toString('utf8')) as unknown;
  };

  it('writes what the parsed path writes', () => {
    for (const text of [
      '{"t": [5, 2, 1, 0]}',
      '{ "x" : [1, 2] , "t" : { "a" : 2 , "b" : [ 1 , 40 ] } }',
      '{"t": 2, "y": "z"}',
      '{"t": [1e0, 2]}',
      '{"t": {"caf\\u00e9": 1}}',
    ])
      expect(fast(text), text).toEqual(slow(text));
  });

  it('goes the slow way when the result already has the key of the marks', () => {
    const text = '{"federa_suppressed": "mine", "t": [2, 9]}';
    expect(fast(text)).toEqual(slow(text));
    expect(fast(text)).toMatchObject({ federa_suppressed: [{ cells: [['0']] }] });
  });
});
