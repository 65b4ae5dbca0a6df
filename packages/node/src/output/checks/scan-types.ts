/** The types of scan-cells.ts's answers (apart, so that its own code stays in one module, where V8 runs it fastest). */

/** What to read at a top-level key: a table of cells, or one number. */
export type Wanted =
  | {
      readonly key: string;
      readonly as: 'cells';
      readonly counts: boolean;
      readonly below: number | undefined;
    }
  | { readonly key: string; readonly as: 'number' };

/** Where the small cells are, for suppression in place: byte ranges, the top level's `}`, whether the key is taken. */
export interface Places {
  spans: [number, number][];
  close: number;
  taken: boolean;
}
