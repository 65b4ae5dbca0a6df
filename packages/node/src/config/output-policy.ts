/**
 * `policies.output` as the node uses it (docs/output-control.md): defaults applied (JSON only, DataSHIELD's
 * thresholds, refuse on failure), the image patterns compiled and the declarations parsed, every problem a
 * ConfigError naming the key and the file.
 */
import { ConfigError, parseOutputDeclaration, type OutputDeclaration } from '@federa/common';
import type { Static } from '@sinclair/typebox';

import { DATASHIELD_DEFAULTS, type DisclosureThresholds } from '../output/disclosure.js';
import type { OutputPolicySchema } from './output-policy-schema.js';

export interface DeclarationRule {
  readonly image: RegExp;
  /** The function (the input's `method`); undefined = every function of the image. */
  readonly function: string | undefined;
  readonly output: OutputDeclaration;
}

export interface HoldRules {
  readonly all: boolean;
  readonly images: readonly RegExp[];
  readonly functions: readonly string[];
  readonly collaborations: readonly number[];
  readonly users: readonly number[];
  /** A held result not decided within this time is refused. */
  readonly expireAfterMs: number;
}

export interface OutputPolicy {
  readonly maxBytes: number | undefined;
  readonly formats: readonly string[];
  readonly undeclared: 'run' | 'refuse';
  readonly onFailure: 'refuse' | 'suppress';
  readonly thresholds: DisclosureThresholds;
  readonly declarations: readonly DeclarationRule[];
  readonly hold: HoldRules | undefined;
}

/** Held results expire after a week unless the configuration says otherwise. */
export const DEFAULT_HOLD_HOURS = 168;

const KEY = 'policies.output';

const pattern = (file: string, source: string, key: string): RegExp => {
  try {
    return new RegExp(source);
  } catch {
    throw new ConfigError(file, `not a valid regular expression: ${JSON.stringify(source)}`, key);
  }
};

const threshold = <T>(v: T | null | undefined, fallback: T): T | null => (v === undefined ? fallback : v);

/** The output policy of a validated configuration; undefined when it has none (every output leaves as written). */
export function normaliseOutputPolicy(
  raw: Static<typeof OutputPolicySchema> | null | undefined,
  file: string,
): OutputPolicy | undefined {
  if (raw === undefined || raw === null) return undefined;
  const c = raw.checks;
  const thresholds: DisclosureThresholds =
    c === null
      ? { minCellCount: null, minGroupSize: null, maxParametersRatio: null, maxLevels: null }
      : {
          minCellCount: threshold(c?.min_cell_count, DATASHIELD_DEFAULTS.minCellCount),
          minGroupSize: threshold(c?.min_group_size, DATASHIELD_DEFAULTS.minGroupSize),
          maxParametersRatio: threshold(c?.max_parameters_ratio, DATASHIELD_DEFAULTS.maxParametersRatio),
          maxLevels: threshold(c?.max_levels, DATASHIELD_DEFAULTS.maxLevels),
        };
  const declarations = (raw.declarations ?? []).map((d, i): DeclarationRule => {
    const key = `${KEY}.declarations.${i}`;
    const parsed = parseOutputDeclaration(d.output);
    if ('error' in parsed)
      throw new ConfigError(file, parsed.error, `${key}.output${parsed.field ? `.${parsed.field}` : ''}`);
    return {
      image: pattern(file, d.image, `${key}.image`),
      function: d.function,
      output: parsed.declaration,
    };
  });
  const h = raw.hold;
  const hold: HoldRules | undefined = h
    ? {
        all: h.all ?? false,
        images: (h.images ?? []).map((p, i) => pattern(file, p, `${KEY}.hold.images.${i}`)),
        functions: h.functions ?? [],
        collaborations: h.collaborations ?? [],
        users: h.users ?? [],
        expireAfterMs: Math.round((h.expire_after_hours ?? DEFAULT_HOLD_HOURS) * 3_600_000),
      }
    : undefined;
  if (
    hold &&
    !hold.all &&
    [hold.images, hold.functions, hold.collaborations, hold.users].every((l) => !l.length)
  )
    throw new ConfigError(
      file,
      'holds nothing: set all: true, or list the images, functions, collaborations or users whose results are held',
      `${KEY}.hold`,
    );
  return {
    maxBytes: raw.max_bytes,
    formats: raw.formats ?? ['json'],
    undeclared: raw.undeclared ?? 'run',
    onFailure: raw.on_failure ?? 'refuse',
    thresholds,
    declarations,
    hold,
  };
}
