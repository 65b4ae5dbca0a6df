/** Which hold rules of the output policy (docs/output-control.md#held-results) a run matches. */
import type { HoldRules } from '../config/output-policy.js';

export interface RunFacts {
  readonly image: string;
  readonly fn: string | undefined;
  readonly collaborationId: number;
  readonly userId: number | undefined;
}

/** The rules that hold this run's result, in words (`users: 7`); empty when it is not held. */
export function holdReasons(rules: HoldRules | undefined, f: RunFacts): string[] {
  if (!rules) return [];
  const why: string[] = [];
  if (rules.all) why.push('all: true');
  // Prefix matching, like `allowed_algorithms`.
  const image = rules.images.find((p) => f.image.search(p) === 0);
  if (image) why.push(`images: ${image.source}`);
  if (f.fn !== undefined && rules.functions.includes(f.fn)) why.push(`functions: ${f.fn}`);
  if (rules.collaborations.includes(f.collaborationId)) why.push(`collaborations: ${f.collaborationId}`);
  if (f.userId !== undefined && rules.users.includes(f.userId)) why.push(`users: ${f.userId}`);
  return why;
}
