/** A function's declared result views drawn: a table, a line chart (SVG, no library) or a histogram. */
import { BarChart, formatNumber } from '../components/ui.js';
import { viewData, type LineData, type Output, type TableData, type View } from './views.js';

const cell = (v: unknown): string =>
  typeof v === 'number'
    ? formatNumber(v)
    : v === null || v === undefined
      ? ''
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

function ViewTable({ title, data }: { title: string; data: TableData }) {
  return (
    <div className="table-box" tabIndex={0}>
      <table className="table">
        <caption>{title}</caption>
        <thead>
          <tr>
            {data.columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {data.rows.map((r, i) => (
            <tr key={i}>
              {data.columns.map((c) => (
                <td key={c} className={typeof r[c] === 'number' ? 'num' : undefined}>
                  {cell(r[c])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const COLOURS = ['#1d5bbf', '#b4480c', '#2f7d32', '#7b3fa0', '#9b1c1c'];

function LineChart({ title, data }: { title: string; data: LineData }) {
  const points = data.series.flatMap((s) => s.points);
  const [x0, x1] = [Math.min(...points.map((p) => p.x)), Math.max(...points.map((p) => p.x))];
  const [y0, y1] = [Math.min(0, ...points.map((p) => p.y)), Math.max(...points.map((p) => p.y))];
  const [w, h, left, bottom] = [640, 260, 56, 28];
  const sx = (x: number): number => left + ((x - x0) / (x1 - x0 || 1)) * (w - left - 12);
  const sy = (y: number): number => h - bottom - ((y - y0) / (y1 - y0 || 1)) * (h - bottom - 12);
  const described = data.series
    .map((s) => `${s.name}: ${s.points.map((p) => `(${formatNumber(p.x)}, ${formatNumber(p.y)})`).join(' ')}`)
    .join('; ');
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg
        role="img"
        aria-label={`${title}, ${data.x} against value: ${described}`}
        width="100%"
        viewBox={`0 0 ${w} ${h}`}
      >
        <line x1={left} y1={h - bottom} x2={w - 8} y2={h - bottom} className="axis" stroke="#55606e" />
        <line x1={left} y1={8} x2={left} y2={h - bottom} className="axis" stroke="#55606e" />
        <text x={left - 6} y={sy(y1) + 4} textAnchor="end" className="chart-label">
          {formatNumber(y1)}
        </text>
        <text x={left - 6} y={sy(y0) + 4} textAnchor="end" className="chart-label">
          {formatNumber(y0)}
        </text>
        <text x={sx(x0)} y={h - 8} className="chart-label">
          {formatNumber(x0)}
        </text>
        <text x={sx(x1)} y={h - 8} textAnchor="end" className="chart-label">
          {formatNumber(x1)} ({data.x})
        </text>
        {data.series.map((s, i) => (
          <polyline
            key={s.name}
            fill="none"
            strokeWidth={2}
            stroke={COLOURS[i % COLOURS.length]}
            points={s.points.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' ')}
          />
        ))}
      </svg>
      {data.series.length > 1 ? (
        <ul className="legend">
          {data.series.map((s, i) => (
            <li key={s.name}>
              <span aria-hidden="true" style={{ color: COLOURS[i % COLOURS.length] }}>
                ━
              </span>{' '}
              {s.name}
            </li>
          ))}
        </ul>
      ) : null}
    </figure>
  );
}

/** Each view the function declares, over the outputs of the task. */
export function Views({ views, outputs }: { views: readonly View[]; outputs: readonly Output[] }) {
  return (
    <>
      {views.map((v) => {
        const shown = viewData(v, outputs);
        const title = v.description ? `${v.name}: ${v.description}` : v.name;
        return (
          <section key={v.name} className="card store-view" aria-label={v.name}>
            <h2>{v.name}</h2>
            {shown.kind === 'table' ? <ViewTable title={title} data={shown.data} /> : null}
            {shown.kind === 'line' ? <LineChart title={title} data={shown.data} /> : null}
            {shown.kind === 'histogram' ? <BarChart title={title} data={shown.data.bars} /> : null}
            {shown.kind === 'none' ? <p>Nothing to show: {shown.reason}.</p> : null}
          </section>
        );
      })}
    </>
  );
}
