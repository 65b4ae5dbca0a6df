import { describe, expect, it } from 'vitest';

import type { OutputPolicy } from '../config/output-policy.js';
import { DATASHIELD_DEFAULTS, SUPPRESSED_KEY } from './disclosure.js';
import { gateOutput } from './output-gate.js';

const policy = (p: Partial<OutputPolicy> = {}): OutputPolicy => ({
  maxBytes: undefined,
  formats: ['json'],
  undeclared: 'run',
  onFailure: 'refuse',
  thresholds: DATASHIELD_DEFAULTS,
  declarations: [],
  hold: undefined,
  ...p,
});
const json = (v: unknown): Buffer => Buffer.from(`json.${JSON.stringify(v)}`);
const table = { kind: 'count_table', counts: 'table' } as const;

describe('the output gate', () => {
  it('passes an output at max_bytes and refuses one byte more, before reading it', () => {
    const out = json({ a: 1 });
    expect(gateOutput(policy({ maxBytes: out.length }), out, undefined).kind).toBe('pass');
    expect(gateOutput(policy({ maxBytes: out.length - 1 }), out, undefined)).toEqual({
      kind: 'refuse',
      rule: 'max_bytes',
      threshold: out.length - 1,
      reason: `the output has ${out.length} bytes, more than max_bytes (${out.length - 1})`,
    });
    expect(gateOutput(policy({ maxBytes: 10 }), Buffer.alloc(0), undefined, 11)).toMatchObject({
      rule: 'max_bytes',
    });
  });

  it('lets only the allowed formats leave: a pickle or raw bytes are refused under JSON only', () => {
    expect(gateOutput(policy(), Buffer.from('pickle.\x80\x04'), undefined)).toMatchObject({
      kind: 'refuse',
      rule: 'formats',
      reason: "the output is in the format 'pickle', and this node lets only json leave",
    });
    expect(gateOutput(policy(), Buffer.from([0x80, 0x04, 0x95]), undefined)).toMatchObject({
      rule: 'formats',
      reason: expect.stringContaining("'legacy'") as unknown,
    });
    expect(gateOutput(policy({ formats: ['json', 'pickle'] }), Buffer.from('pickle.x'), undefined).kind).toBe(
      'pass',
    );
  });

  it('passes an undeclared JSON output unchecked', () => {
    expect(gateOutput(policy(), json({ table: [1] }), undefined)).toMatchObject({ kind: 'pass', checks: [] });
  });

  it('passes a table whose cells are all at least the threshold, naming the rules applied', () => {
    const out = json({
      table: [
        [3, 10],
        [0, 4],
      ],
    });
    expect(gateOutput(policy(), out, table)).toEqual({
      kind: 'pass',
      output: out,
      checks: ['min_cell_count', 'max_levels'],
      suppressed: [],
    });
  });

  it('refuses a table with a cell of 2, with the rule and threshold and without the values', () => {
    const v = gateOutput(
      policy(),
      json({
        table: [
          [2, 10],
          [7, 4],
        ],
      }),
      table,
    );
    expect(v).toEqual({
      kind: 'refuse',
      rule: 'min_cell_count',
      threshold: 3,
      reason: "1 of 4 cells of 'table' count more than 0 and fewer than 3",
    });
  });

  it('suppresses the failing cells when the policy says so, marking them', () => {
    const v = gateOutput(policy({ onFailure: 'suppress' }), json({ table: { a: 2, b: 10 }, n: 12 }), table);
    expect(v.kind).toBe('pass');
    if (v.kind !== 'pass') return;
    expect(JSON.parse(v.output.subarray(5).toString())).toEqual({
      table: { a: null, b: 10 },
      n: 12,
      [SUPPRESSED_KEY]: [{ rule: 'min_cell_count', threshold: 3, fields: ['table'], cells: [['a']] }],
    });
    expect(v.suppressed).toHaveLength(1);
  });

  it('names every rule that failed, the first one being the verdict', () => {
    const wide = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`k${i}`, i === 0 ? 1 : 5]));
    expect(gateOutput(policy(), json({ table: wide }), table)).toEqual({
      kind: 'refuse',
      rule: 'min_cell_count',
      threshold: 3,
      reason:
        "1 of 41 cells of 'table' count more than 0 and fewer than 3; max_levels (threshold 40): 'table' has 41 levels at depth 1, more than 40",
    });
  });

  it('refuses what cannot be suppressed even when the policy suppresses (too many parameters)', () => {
    const v = gateOutput(policy({ onFailure: 'suppress' }), json({ coef: [1, 2, 3, 4], n: 10 }), {
      kind: 'model_coefficients',
      coefficients: 'coef',
      rows: 'n',
    });
    expect(v).toMatchObject({ kind: 'refuse', rule: 'max_parameters_ratio', threshold: 0.33 });
  });

  it('refuses an output that claims a declared shape but does not parse as it', () => {
    expect(gateOutput(policy(), Buffer.from('json.{"table": [1, 2'), table)).toMatchObject({
      rule: 'declared_shape',
      reason: 'the output declared a count_table but is not valid JSON',
    });
    expect(gateOutput(policy(), json({ other: [5] }), table)).toMatchObject({
      rule: 'declared_shape',
      reason: "the output declared a count_table but the result has no key 'table'",
    });
    expect(gateOutput(policy(), json([5]), table)).toMatchObject({
      reason: 'the output declared a count_table but the result is not a JSON object',
    });
    expect(gateOutput(policy({ formats: ['json', 'pickle'] }), Buffer.from('pickle.x'), table)).toMatchObject(
      {
        rule: 'declared_shape',
        reason: "the output declared a count_table but is not JSON ('pickle')",
      },
    );
  });

  it('checks nothing a threshold of null turns off', () => {
    const off = { ...DATASHIELD_DEFAULTS, minCellCount: null };
    expect(gateOutput(policy({ thresholds: off }), json({ table: [1] }), table)).toMatchObject({
      kind: 'pass',
      checks: ['max_levels'],
    });
  });
});
