/** What a disclosure check found wrong with an output: the rule, its threshold, and never the values. */

export type DisclosureRule = 'min_cell_count' | 'min_group_size' | 'max_parameters_ratio' | 'max_levels';

export interface Finding {
  readonly rule: DisclosureRule;
  readonly threshold: number;
  /** The declared field (its result key) the rule failed on. */
  readonly field: string;
  /** What failed, in words that hold no value of the output (how many cells, which level). */
  readonly detail: string;
  /** Paths (keys and indexes) of the cells or groups that failed; empty when the failure is not one of cells. */
  readonly paths: readonly (readonly string[])[];
}
