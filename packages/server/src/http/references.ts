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

/** One frozen methods list per kind, shared by every reference of that kind (references are only serialized). */
const SHARED_METHODS = Object.fromEntries(
  Object.entries(REFERENCE_METHODS).map(([kind, methods]) => [kind, Object.freeze([...methods])]),
) as unknown as Record<ReferenceKind, string[]>;

export class References {
  readonly #prefixes: Record<ReferenceKind, string>;
  /** Per kind, the JSON text of a reference around its id: `{"id":` … `,"link":"/api/task/` … `","methods":[…]}`. */
  readonly #json: Record<ReferenceKind, { link: string; end: string }>;

  constructor(readonly apiPath: string) {
    this.#prefixes = Object.fromEntries(
      Object.keys(REFERENCE_METHODS).map((kind) => [kind, `${apiPath}/${kind}/`]),
    ) as Record<ReferenceKind, string>;
    this.#json = Object.fromEntries(
      Object.entries(REFERENCE_METHODS).map(([kind, methods]) => [
        kind,
        {
          link: `,"link":${JSON.stringify(`${apiPath}/${kind}/`).slice(0, -1)}`,
          end: `","methods":${JSON.stringify(methods)}}`,
        },
      ]),
    ) as Record<ReferenceKind, { link: string; end: string }>;
  }

  /**
   * {@link many} as JSON text, written flat. A long list (a collaboration's thousands of tasks) serialized piece by
   * piece is a rope of tens of thousands of strings, which Node flattens again to count its bytes and to write it:
   * for 2,300 references that took longer than building them (docs/performance.md).
   */
  manyJson(kind: ReferenceKind, ids: readonly number[]): string {
    if (ids.length === 0) return 'null';
    const { link, end } = this.#json[kind];
    const parts = new Array<string>(ids.length);
    for (let i = 0; i < ids.length; i++) parts[i] = `{"id":${ids[i]}${link}${ids[i]}${end}`;
    return `[${parts.join(',')}]`;
  }

  one(kind: ReferenceKind, id: number): Reference {
    return { id, link: this.#prefixes[kind] + id, methods: SHARED_METHODS[kind] };
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
