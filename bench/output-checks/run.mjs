#!/usr/bin/env node
// Benchmark: what the node's output checks (docs/output-control.md) add to a run with a 1 MB JSON result: the
// verdict of the output gate (size, format, JSON parse, the declared shape, the disclosure checks, suppression),
// timed on the event loop as the node runs it, beside the 5 ms ceiling. Needs `npx tsc --build` first.
//   node bench/output-checks/run.mjs [--runs 60] [--mb 1]
import { gateOutput, normaliseOutputPolicy } from '@federa/node';
import { numberOption } from '../lib/load.mjs';

const runs = numberOption('runs', 60);
const mb = numberOption('mb', 1);
const CEILING_MS = 5;

/** A count table of about `bytes` of JSON: rows of 100 counts; `small` cells of 2 (below the threshold of 3). */
function countTable(bytes, small) {
  const table = {};
  let size = 0;
  let row = 0;
  while (size < bytes) {
    const cells = Array.from({ length: 100 }, (_, i) => 10 + ((row * 100 + i) % 9000));
    table[`row${row}`] = cells;
    size += JSON.stringify(cells).length + `"row${row}":`.length + 1;
    row++;
  }
  for (let i = 0; i < small; i++) table[`row${i}`][0] = 2;
  return table;
}

function groupMeans(bytes) {
  const means = {};
  const counts = {};
  let size = 0;
  for (let g = 0; size < bytes; g++) {
    means[`g${g}`] = 40 + (g % 37) / 7;
    counts[`g${g}`] = 3 + (g % 200);
    size +=
      JSON.stringify(means[`g${g}`]).length + JSON.stringify(counts[`g${g}`]).length + 2 * `"g${g}":,`.length;
  }
  return { means, counts };
}

const bytes = Math.round(mb * 1024 * 1024);
const json = (v) => Buffer.from(`json.${JSON.stringify(v)}`);
// max_levels is off: a table of 1 MB has thousands of rows, which the default of 40 would refuse at once.
const policy = (onFailure) =>
  normaliseOutputPolicy(
    { formats: ['json'], on_failure: onFailure, checks: { max_levels: null } },
    'bench.yaml',
  );
const table = { kind: 'count_table', counts: 'table' };
const means = { kind: 'group_means', means: 'means', counts: 'counts' };

const cases = [
  [
    'undeclared (size and format only)',
    policy('refuse'),
    json({ table: countTable(bytes, 0) }),
    undefined,
    'pass',
  ],
  ['count table, every cell passes', policy('refuse'), json({ table: countTable(bytes, 0) }), table, 'pass'],
  [
    'count table, 50 cells of 2, refused',
    policy('refuse'),
    json({ table: countTable(bytes, 50) }),
    table,
    'refuse',
  ],
  [
    'count table, 50 cells of 2, suppressed',
    policy('suppress'),
    json({ table: countTable(bytes, 50) }),
    table,
    'pass',
  ],
  ['group means, every group passes', policy('refuse'), json(groupMeans(bytes)), means, 'pass'],
];

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const rows = [];
for (const [name, pol, output, declaration, expect] of cases) {
  for (let i = 0; i < 5; i++) gateOutput(pol, output, declaration); // warm-up
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const verdict = gateOutput(pol, output, declaration);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (verdict.kind !== expect)
      throw new Error(`${name}: expected ${expect}, got ${JSON.stringify(verdict)}`);
  }
  ms.sort((a, b) => a - b);
  // The floor: parsing the same body, which any check of a declared output needs.
  const body = output.subarray(5).toString('utf8');
  const parse = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    JSON.parse(body);
    parse.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  parse.sort((a, b) => a - b);
  rows.push({
    case: name,
    bytes: output.length,
    json_parse_ms: declaration ? +pct(parse, 50).toFixed(2) : '-',
    json_parse_min_ms: declaration ? +parse[0].toFixed(2) : '-',
    // The fastest run: what the checks cost when the other jobs of a shared machine leave the core alone.
    min_ms: +ms[0].toFixed(2),
    median_ms: +pct(ms, 50).toFixed(2),
    p95_ms: +pct(ms, 95).toFixed(2),
    ceiling_ms: CEILING_MS,
    within: pct(ms, 50) < CEILING_MS ? 'yes' : 'NO',
  });
}
console.table(rows);
