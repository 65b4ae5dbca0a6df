import { describe, expect, it } from 'vitest';

import { normaliseNodeConfig } from './node-config.js';

const FILE = '/etc/federa/hospital.yaml';
const load = (output: unknown) =>
  normaliseNodeConfig(
    { api_key: 'k', server_url: 'http://localhost', policies: { output } },
    { file: FILE, name: 'hospital' },
  ).outputPolicy;

describe('policies.output', () => {
  it('is absent unless configured: every output leaves as written', () => {
    expect(
      normaliseNodeConfig({ api_key: 'k', server_url: 'http://x' }, { file: FILE, name: 'n' }).outputPolicy,
    ).toBeUndefined();
  });

  it("defaults to JSON only, DataSHIELD's thresholds, refusal on failure and running undeclared functions", () => {
    expect(load({})).toEqual({
      maxBytes: undefined,
      formats: ['json'],
      undeclared: 'run',
      onFailure: 'refuse',
      thresholds: { minCellCount: 3, minGroupSize: 3, maxParametersRatio: 0.33, maxLevels: 40 },
      declarations: [],
      hold: undefined,
    });
  });

  it('takes thresholds, null turning one off, and holds with their expiry', () => {
    const p = load({
      checks: { min_cell_count: 5, max_levels: null },
      hold: { users: [7], expire_after_hours: 2 },
      declarations: [
        { image: '^reg/count', function: 'partial', output: { kind: 'count_table', counts: 't' } },
      ],
    });
    expect(p?.thresholds).toEqual({
      minCellCount: 5,
      minGroupSize: 3,
      maxParametersRatio: 0.33,
      maxLevels: null,
    });
    expect(p?.hold).toMatchObject({ users: [7], all: false, expireAfterMs: 7_200_000 });
    expect(p?.declarations[0]).toMatchObject({
      function: 'partial',
      output: { kind: 'count_table', counts: 't' },
    });
  });

  it.each([
    [{ checks: { min_cell_cont: 3 } }, "key 'policies.output.checks.min_cell_cont'"],
    [{ size_limit: 3 }, "key 'policies.output.size_limit'"],
    [{ checks: { min_cell_count: 0 } }, "key 'policies.output.checks.min_cell_count'"],
    [{ checks: { min_cell_count: 2.5 } }, "key 'policies.output.checks.min_cell_count'"],
    [{ checks: { max_parameters_ratio: 0 } }, "key 'policies.output.checks.max_parameters_ratio'"],
    [{ checks: { max_parameters_ratio: 1.5 } }, "key 'policies.output.checks.max_parameters_ratio'"],
    [{ checks: { max_levels: 0 } }, "key 'policies.output.checks.max_levels'"],
    [{ max_bytes: 0 }, "key 'policies.output.max_bytes'"],
    [{ formats: ['yaml'] }, "key 'policies.output.formats.0'"],
    [{ on_failure: 'hide' }, "key 'policies.output.on_failure'"],
    [{ hold: { expire_after_hours: 0, all: true } }, "key 'policies.output.hold.expire_after_hours'"],
    [{ hold: {} }, "key 'policies.output.hold'"],
    [{ hold: { images: ['('] } }, "key 'policies.output.hold.images.0'"],
    [
      { declarations: [{ image: 'x', output: { kind: 'histogram', counts: 'c' } }] },
      "key 'policies.output.declarations.0.output.kind'",
    ],
    [
      { declarations: [{ image: 'x', output: { kind: 'count_table' } }] },
      "key 'policies.output.declarations.0.output.counts'",
    ],
    [
      { declarations: [{ image: 'x', output: { kind: 'count_table', counts: 'c', rows: 'n' } }] },
      "key 'policies.output.declarations.0.output.rows'",
    ],
  ])('stops the node at start on %j, naming the key and the file', (output, key) => {
    expect(() => load(output)).toThrow(key);
    expect(() => load(output)).toThrow(FILE);
  });
});
