/** Small building blocks shared by the pages. */
import { useId, type ReactNode } from 'react';
import { isFailedRunStatus } from '@federa/common';

/** An API refusal or other failure, announced to screen readers. */
export function ErrorBox({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <div className="error" role="alert">
      {error}
    </div>
  );
}

/** What came of an action: its error, or its success message. */
export function Outcome({ action }: { action: { error: string | null; done: string | null } }) {
  if (action.error) return <ErrorBox error={action.error} />;
  if (!action.done) return null;
  return (
    <p className="notice success" role="status">
      {action.done}
    </p>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <div className="notice" role="status">
      {children}
    </div>
  );
}

/** Shown while something long runs. */
export function Progress({ label }: { label: string }) {
  return (
    <div className="progress" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

const STATUS_CLASS: Record<string, string> = {
  completed: 'ok',
  online: 'ok',
  active: 'run',
  initializing: 'run',
  pending: 'wait',
  offline: 'off',
  cancelled: 'off',
};

/** Run and task statuses (docs/run-statuses.md): every failed one (`crashed`, `killed by user`, …) shows as bad. */
const statusClass = (text: string): string =>
  STATUS_CLASS[text] ?? (isFailedRunStatus(text) ? 'bad' : 'wait');

export function Status({ value }: { value: string | null | undefined }) {
  const text = value ?? 'unknown';
  return <span className={`status status-${statusClass(text)}`}>{text}</span>;
}

/** Pages of a listing: the API's `page`/`per_page` and its total count. */
export function Pager(props: {
  page: number;
  perPage: number;
  total: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(props.total / props.perPage));
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        ← Previous
      </button>
      <span>
        Page {props.page} of {pages} · {props.total} in all
      </span>
      <button type="button" disabled={props.page >= pages} onClick={() => props.onPage(props.page + 1)}>
        Next →
      </button>
    </nav>
  );
}

/** A labelled form field. */
export function Field(props: { label: string; children: (id: string) => ReactNode; hint?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children(id)}
      {props.hint ? <small>{props.hint}</small> : null}
    </div>
  );
}

/** A bar chart of named numbers (SVG, no library). */
export function BarChart({ title, data }: { title: string; data: { label: string; value: number }[] }) {
  if (data.length === 0) return null;
  const max = Math.max(...data.map((d) => Math.abs(d.value)), 1e-12);
  const rowH = 28;
  const labelW = 170;
  const width = 640;
  const barW = width - labelW - 90;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg
        role="img"
        aria-label={`${title}: ${data.map((d) => `${d.label} ${d.value}`).join(', ')}`}
        width="100%"
        viewBox={`0 0 ${width} ${data.length * rowH + 8}`}
      >
        {data.map((d, i) => {
          const w = Math.max(1, (Math.abs(d.value) / max) * barW);
          return (
            <g key={d.label} transform={`translate(0, ${i * rowH + 4})`}>
              <text x={labelW - 8} y={rowH / 2 + 4} textAnchor="end" className="chart-label">
                {d.label.length > 24 ? `${d.label.slice(0, 23)}…` : d.label}
              </text>
              <rect x={labelW} y={4} width={w} height={rowH - 10} className="chart-bar" rx={3} />
              <text x={labelW + w + 6} y={rowH / 2 + 4} className="chart-value">
                {formatNumber(d.value)}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

export function formatNumber(n: number): string {
  // Four decimals at most, trailing zeros dropped: 35.142857… → 35.1429.
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(4)));
}

export function formatTime(value: string | null | undefined): string {
  if (!value) return '—';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? value : d.toLocaleString();
}

export function refId(ref: { id: number } | number | null | undefined): number | null {
  if (ref === null || ref === undefined) return null;
  return typeof ref === 'number' ? ref : ref.id;
}
