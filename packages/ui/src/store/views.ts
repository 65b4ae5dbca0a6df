/**
 * The data of a function's declared result views (docs/store.md#result-views): a table, a line chart or a
 * histogram, read from each organization's output at the view's `location` (a path of keys), with the keys its
 * schema names. Pure functions: the page draws what these return, and a result that does not fit says why.
 */

export interface View {
  name: string;
  type: string;
  description?: string;
  schema?: Record<string, unknown>;
}

/** One output: who produced it, and its value. */
export interface Output {
  source: string;
  value: unknown;
}

export interface TableData {
  columns: string[];
  rows: Record<string, unknown>[];
}

export interface LineData {
  x: string;
  series: { name: string; points: { x: number; y: number }[] }[];
}

export interface BarData {
  bars: { label: string; value: number }[];
}

export type ViewData =
  | { kind: 'table'; data: TableData }
  | { kind: 'line'; data: LineData }
  | { kind: 'histogram'; data: BarData }
  | { kind: 'none'; reason: string };

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : [];

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The value at a path of keys (`['data', 'table']` → `value.data.table`); an array index may be a key too. */
export function at(value: unknown, location: readonly string[]): unknown {
  let v = value;
  for (const key of location) {
    if (Array.isArray(v) && /^\d+$/.test(key)) v = v[Number(key)];
    else if (isObject(v)) v = v[key];
    else return undefined;
  }
  return v;
}

/** The rows an output holds: a list of objects, one object, or an object of objects (one row per key). */
function rowsOf(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.filter(isObject);
  if (!isObject(value)) return [];
  const inner = Object.entries(value);
  if (inner.length > 0 && inner.every(([, v]) => isObject(v)))
    return inner.map(([k, v]) => ({ name: k, ...(v as Record<string, unknown>) }));
  return [value];
}

function table(view: View, outputs: readonly Output[], location: string[]): ViewData {
  const many = outputs.length > 1;
  const rows = outputs.flatMap((o) =>
    rowsOf(at(o.value, location)).map((r) => (many ? { organization: o.source, ...r } : r)),
  );
  if (rows.length === 0) return { kind: 'none', reason: `no rows at ${where(location)}` };
  const named =
    strings(view.schema?.columns).length > 0 ? strings(view.schema?.columns) : strings(view.schema?.keys);
  const seen: string[] = [];
  for (const r of rows) for (const k of Object.keys(r)) if (!seen.includes(k)) seen.push(k);
  const columns = named.length > 0 ? [...(many ? ['organization'] : []), ...named] : seen;
  return { kind: 'table', data: { columns, rows } };
}

function line(view: View, outputs: readonly Output[], location: string[]): ViewData {
  const xKey = typeof view.schema?.x === 'string' ? view.schema.x : '';
  const yKeys = strings(view.schema?.y).length > 0 ? strings(view.schema?.y) : strings(view.schema?.keys);
  const series: LineData['series'] = [];
  for (const o of outputs) {
    const v = at(o.value, location);
    const prefix = outputs.length > 1 ? `${o.source}: ` : '';
    if (isObject(v) && Object.values(v).every((y) => num(y) !== null) && yKeys.length === 0) {
      // `{1: 0.5, 2: 0.7}`: the keys are the x values.
      const points = Object.entries(v)
        .map(([x, y]) => ({ x: Number(x), y: y as number }))
        .filter((p) => Number.isFinite(p.x));
      if (points.length > 0) series.push({ name: `${prefix}${view.name}`, points });
      continue;
    }
    const rows = Array.isArray(v) ? v : [];
    const keys = yKeys.length > 0 ? yKeys : Object.keys(rows.find(isObject) ?? {}).filter((k) => k !== xKey);
    for (const key of keys) {
      const points = rows.flatMap((r, i) => {
        if (num(r) !== null && keys.length === 1) return [{ x: i, y: r as number }];
        if (!isObject(r)) return [];
        const y = num(r[key]);
        const x = xKey ? num(r[xKey]) : i;
        return y === null || x === null ? [] : [{ x, y }];
      });
      if (points.length > 0) series.push({ name: `${prefix}${key}`, points });
    }
  }
  if (series.length === 0) return { kind: 'none', reason: `no numbers to draw at ${where(location)}` };
  return { kind: 'line', data: { x: xKey || 'index', series } };
}

function histogram(view: View, outputs: readonly Output[], location: string[]): ViewData {
  const [labelKey, valueKey] = [
    typeof view.schema?.x === 'string' ? view.schema.x : strings(view.schema?.keys)[0],
    typeof view.schema?.y === 'string' ? view.schema.y : strings(view.schema?.keys)[1],
  ];
  const bars: BarData['bars'] = [];
  for (const o of outputs) {
    const v = at(o.value, location);
    const prefix = outputs.length > 1 ? `${o.source}: ` : '';
    if (isObject(v))
      for (const [k, c] of Object.entries(v)) {
        const n = num(c);
        if (n !== null) bars.push({ label: `${prefix}${k}`, value: n });
      }
    else if (Array.isArray(v))
      v.forEach((item, i) => {
        const n = num(item);
        if (n !== null) bars.push({ label: `${prefix}${i}`, value: n });
        else if (isObject(item) && labelKey && valueKey) {
          const c = num(item[valueKey]);
          if (c !== null) bars.push({ label: `${prefix}${String(item[labelKey])}`, value: c });
        }
      });
  }
  if (bars.length === 0) return { kind: 'none', reason: `no counts at ${where(location)}` };
  return { kind: 'histogram', data: { bars } };
}

const where = (location: readonly string[]): string =>
  location.length === 0 ? 'the top of the result' : `"${location.join('.')}"`;

/** What one declared view shows of the outputs. */
export function viewData(view: View, outputs: readonly Output[]): ViewData {
  const location = strings(view.schema?.location);
  if (outputs.length === 0) return { kind: 'none', reason: 'no readable result yet' };
  if (view.type === 'table') return table(view, outputs, location);
  if (view.type === 'line') return line(view, outputs, location);
  if (view.type === 'histogram') return histogram(view, outputs, location);
  return { kind: 'none', reason: `the view type "${view.type}" is not one this page draws` };
}
