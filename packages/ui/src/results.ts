/** Turning decrypted outputs into table rows, chart series and downloads. */

export interface ResultRow {
  label: string;
  value: unknown;
}

/** Numeric fields of a value, one level deep (`{a: 1, b: {c: 2}}` → `a`, `b.c`); a bare number is `value`. */
export function numericFields(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  const visit = (v: unknown, name: string, depth: number): void => {
    if (typeof v === 'number' && Number.isFinite(v)) out[name || 'value'] = v;
    else if (Array.isArray(v) && depth < 2)
      v.forEach((item, i) => visit(item, name ? `${name}[${i}]` : `[${i}]`, depth + 1));
    else if (v !== null && typeof v === 'object' && depth < 2) {
      for (const [k, item] of Object.entries(v)) visit(item, name ? `${name}.${k}` : k, depth + 1);
    }
  };
  visit(value, '', 0);
  return out;
}

/** The columns of a table over rows: the union of their numeric fields, in first-seen order. */
export function tableColumns(rows: ResultRow[]): string[] {
  const seen: string[] = [];
  for (const r of rows)
    for (const k of Object.keys(numericFields(r.value))) if (!seen.includes(k)) seen.push(k);
  return seen;
}

/**
 * The charts of a set of results, only where the bars share a scale: with several rows, one chart per numeric
 * field across the rows (the same quantity at each organization); with one row, one chart per list of numbers in
 * it (e.g. a histogram's counts). Distinct fields of one result (an average, a count, a number of organizations)
 * are different quantities: the table shows them, no chart draws them as bars of one scale.
 */
export function chartSeries(
  rows: ResultRow[],
): { title: string; data: { label: string; value: number }[] }[] {
  const withNumbers = rows.filter((r) => Object.keys(numericFields(r.value)).length > 0);
  if (withNumbers.length === 0) return [];
  if (withNumbers.length === 1) {
    const only = withNumbers[0]!;
    const lists = new Map<string, { label: string; value: number }[]>();
    for (const [field, value] of Object.entries(numericFields(only.value))) {
      const item = /^(.*)\[(\d+)\]$/.exec(field);
      if (!item) continue;
      const list = item[1] || only.label;
      lists.set(list, [...(lists.get(list) ?? []), { label: item[2]!, value }]);
    }
    return [...lists]
      .filter(([, data]) => data.length > 1)
      .map(([list, data]) => ({ title: list === only.label ? list : `${only.label}: ${list}`, data }));
  }
  return tableColumns(withNumbers).map((column) => ({
    title: column,
    data: withNumbers
      .map((r) => ({ label: r.label, value: numericFields(r.value)[column] }))
      .filter((d): d is { label: string; value: number } => d.value !== undefined),
  }));
}

/** A plain number, as a spreadsheet reads it: never a formula, so it stays a number. */
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * One CSV cell. Text that a spreadsheet would run as a formula (it begins with `=`, `+`, `-`, `@`, a tab or a
 * carriage return: an organization's name or a result is anyone's text) gets a single quote in front, which the
 * spreadsheet shows as text; numbers (`-3.5`) stay numbers.
 */
function csvCell(v: unknown): string {
  let text = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (/^[=+\-@\t\r]/.test(text) && !(typeof v === 'number' || PLAIN_NUMBER.test(text))) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** CSV of the rows: a `source` column, then the numeric fields, then the whole value as JSON. */
export function toCsv(rows: ResultRow[]): string {
  const columns = tableColumns(rows);
  const lines = [['source', ...columns, 'value'].map(csvCell).join(',')];
  for (const r of rows) {
    const fields = numericFields(r.value);
    lines.push([r.label, ...columns.map((c) => fields[c] ?? ''), r.value].map(csvCell).join(','));
  }
  return `${lines.join('\n')}\n`;
}

/** Offers `text` as a file download. */
export function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
