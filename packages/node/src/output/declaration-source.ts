/**
 * Where a run's declared output comes from (docs/output-control.md#declared-outputs): the node's own configuration
 * (`policies.output.declarations`, the first rule whose image pattern and function match), else the source given to
 * the node for the algorithm store's function descriptions. The node's word comes first: its data officer vouches
 * for it.
 */
import type { OutputDeclaration } from '@federa/common';

import type { OutputPolicy } from '../config/output-policy.js';

/** A run as a declaration source sees it. */
export interface DeclarationQuery {
  readonly image: string;
  /** The function run (the input's `method`), when the input names one. */
  readonly fn: string | undefined;
  readonly taskId: number;
}

/**
 * A source of declarations other than the node's configuration (the algorithm store): the declaration of this run's
 * function, or undefined when it declares none.
 */
export type DeclarationSource = (q: DeclarationQuery) => Promise<OutputDeclaration | undefined>;

/** Prefix matching, like `allowed_algorithms`: a pattern matches from the start of the image name. */
const matchesImage = (pattern: RegExp, image: string): boolean => image.search(pattern) === 0;

/** The declared output of a run, or undefined when neither the node nor `source` declares one. */
export async function declarationFor(
  policy: OutputPolicy,
  q: DeclarationQuery,
  source?: DeclarationSource,
): Promise<OutputDeclaration | undefined> {
  const rule = policy.declarations.find(
    (d) => matchesImage(d.image, q.image) && (d.function === undefined || d.function === q.fn),
  );
  if (rule) return rule.output;
  return source ? source(q) : undefined;
}

/** The function a run's input names (`method` of a JSON input), or undefined. */
export function functionOfInput(input: Uint8Array | undefined): string | undefined {
  if (!input || input.length === 0) return undefined;
  const text = Buffer.from(input.subarray(0, 5)).toString('latin1').toLowerCase();
  if (text !== 'json.') return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(input.subarray(5)).toString('utf8')) as unknown;
    const method = (parsed as { method?: unknown } | null)?.method;
    return typeof method === 'string' && method.length <= 200 ? method : undefined;
  } catch {
    return undefined;
  }
}
