/**
 * Hypermedia references (docs/api.md#references): `{id, link, methods}` for a related resource.
 */
export const REFERENCE_METHODS = {
  organization: ['GET', 'PATCH'],
  collaboration: ['GET', 'PATCH', 'DELETE'],
  node: ['GET', 'DELETE', 'PATCH'],
  user: ['GET', 'PATCH', 'DELETE'],
  task: ['GET', 'DELETE'],
  result: ['GET', 'PATCH'],
  role: ['GET', 'PATCH', 'DELETE'],
  rule: ['GET'],
  port: ['GET'],
} as const;

export type ReferenceKind = keyof typeof REFERENCE_METHODS;

export interface Reference {
  id: number;
  link: string;
  methods: string[];
}

export class References {
  constructor(readonly apiPath: string) {}

  one(kind: ReferenceKind, id: number): Reference {
    return { id, link: `${this.apiPath}/${kind}/${id}`, methods: [...REFERENCE_METHODS[kind]] };
  }

  /** To-one reference, `null` when there is no target. */
  maybe(kind: ReferenceKind, id: number | null | undefined): Reference | null {
    return id === null || id === undefined ? null : this.one(kind, id);
  }

  /** To-many references: `null` (not `[]`) when empty, as vantage6 3.x emits. */
  many(kind: ReferenceKind, ids: readonly number[] | undefined): Reference[] | null {
    return ids && ids.length > 0 ? ids.map((id) => this.one(kind, id)) : null;
  }
}

/** Groups `[key, value]` rows into a map of key → values (for batched relation loading). */
export function groupIds<K extends string | number>(rows: readonly { k: K; v: number }[]): Map<K, number[]> {
  const out = new Map<K, number[]>();
  for (const { k, v } of rows) {
    const list = out.get(k);
    if (list) list.push(v);
    else out.set(k, [v]);
  }
  return out;
}
