/**
 * The node's verdict on a run's plain output (docs/output-control.md): its size, its format, and, when the function
 * declared what it returns, the disclosure checks, with the failing cells suppressed where the policy says so. Pure:
 * the bytes in, the verdict out; what the verdict says never holds a value of the output.
 */
import { detectPayloadFormat, type OutputDeclaration } from '@federa/common';

import type { OutputPolicy } from '../config/output-policy.js';
import type { Finding } from './checks/finding.js';
import { inspectOutput, suppressible, suppressOutput } from './disclosure.js';
import { scannedInspection, suppressedInPlace } from './fast-inspect.js';
import type { Places } from './checks/scan-cells.js';

/** The rules of an output policy, as named in the run's log, the node's log and the audit log. */
export type OutputRule =
  | 'max_bytes'
  | 'formats'
  | 'declared_shape'
  | 'min_cell_count'
  | 'min_group_size'
  | 'max_parameters_ratio'
  | 'max_levels';

export type GateVerdict =
  | {
      readonly kind: 'pass';
      readonly output: Buffer;
      /** The disclosure rules applied (none for an undeclared output). */
      readonly checks: readonly string[];
      /** What was suppressed (empty when nothing was). */
      readonly suppressed: readonly Finding[];
    }
  | {
      readonly kind: 'refuse';
      readonly rule: OutputRule;
      readonly threshold: number | string | null;
      /** What failed, naming the rule and its threshold, never a value of the output. */
      readonly reason: string;
    };

const refuse = (rule: OutputRule, threshold: number | string | null, reason: string): GateVerdict => ({
  kind: 'refuse',
  rule,
  threshold,
  reason,
});

/**
 * The verdict on `output` (the bytes the algorithm wrote) under `policy`, `declaration` being what it claims to be.
 * `size`: the output's size, when it was too large to be read (then `output` is not looked at).
 */
export function gateOutput(
  policy: OutputPolicy,
  output: Buffer,
  declaration: OutputDeclaration | undefined,
  size = output.length,
): GateVerdict {
  if (policy.maxBytes !== undefined && size > policy.maxBytes)
    return refuse(
      'max_bytes',
      policy.maxBytes,
      `the output has ${size} bytes, more than max_bytes (${policy.maxBytes})`,
    );
  const { format, body } = detectPayloadFormat(output);
  if (!policy.formats.includes(format))
    return refuse(
      'formats',
      policy.formats.join(', '),
      `the output is in the format '${format}', and this node lets only ${policy.formats.join(', ')} leave`,
    );
  if (declaration === undefined) return { kind: 'pass', output, checks: [], suppressed: [] };
  const shape = `declared a ${declaration.kind}`;
  if (format !== 'json')
    return refuse('declared_shape', declaration.kind, `the output ${shape} but is not JSON ('${format}')`);
  // Read from the bytes when it can be (no JSON.parse: fast-inspect.ts); parsed when the scan gives up, or when
  // cells must be suppressed, which rewrites the result.
  let parsed: unknown;
  const places: Places = { spans: [], close: -1, taken: false };
  let inspection = scannedInspection(body, declaration, policy.thresholds, places);
  const rewrite =
    inspection?.ok === true &&
    inspection.findings.length > 0 &&
    policy.onFailure === 'suppress' &&
    suppressible(inspection.findings);
  if (rewrite && inspection?.ok && declaration.kind === 'count_table') {
    const output = suppressedInPlace(body, places, inspection.findings);
    if (output) return { kind: 'pass', output, checks: inspection.rules, suppressed: inspection.findings };
  }
  if (inspection === undefined || rewrite) {
    try {
      parsed = JSON.parse(Buffer.from(body).toString('utf8'));
    } catch {
      return refuse('declared_shape', declaration.kind, `the output ${shape} but is not valid JSON`);
    }
    inspection = inspectOutput(parsed, declaration, policy.thresholds);
  }
  if (!inspection.ok)
    return refuse('declared_shape', declaration.kind, `the output ${shape} but ${inspection.error}`);
  const { findings, rules } = inspection;
  if (findings.length === 0) return { kind: 'pass', output, checks: rules, suppressed: [] };
  if (policy.onFailure === 'suppress' && suppressible(findings)) {
    const kept = suppressOutput(parsed as Record<string, unknown>, declaration, findings);
    return {
      kind: 'pass',
      output: Buffer.from(`json.${JSON.stringify(kept)}`),
      checks: rules,
      suppressed: findings,
    };
  }
  // The first rule is the verdict's; any other that failed is named with its threshold after it.
  const [first, ...others] = findings as [Finding, ...Finding[]];
  return refuse(
    first.rule,
    first.threshold,
    [first.detail, ...others.map((f) => `${f.rule} (threshold ${f.threshold}): ${f.detail}`)].join('; '),
  );
}
