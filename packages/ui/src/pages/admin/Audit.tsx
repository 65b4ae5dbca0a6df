/**
 * Root only: the server's audit log (docs/audit.md), searched by what (event), who (user, node or container id)
 * and when, and the chain's verification.
 */
import { useState, type FormEvent } from 'react';

import { client } from '../../api.js';
import { SelectField, TextField } from '../../components/fields.js';
import { Table } from '../../components/table.js';
import { ErrorBox, Outcome, Progress, formatTime } from '../../components/ui.js';
import { useAction, useAsync } from '../../hooks.js';

interface Entry {
  seq: number;
  at: string;
  event: string;
  route?: string;
  status?: number;
  ip?: string;
  actor?: { kind: string; id: number; organization_id?: number | null } | null;
  [field: string]: unknown;
}

const SHOWN = new Set(['v', 'seq', 'at', 'event', 'prev', 'hash', 'keyed', 'route', 'status', 'actor', 'ip']);

/** The entry's other fields in a line: `created_id 12 · image x`. */
const details = (e: Entry): string =>
  Object.entries(e)
    .filter(([k]) => !SHOWN.has(k))
    .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');

/** A date-time field's text as the API takes it (the browser's local time → ISO 8601). */
const iso = (local: string): string => (local ? new Date(local).toISOString() : '');

export function Audit() {
  const [form, setForm] = useState({ event: '', kind: '', id: '', from: '', till: '' });
  const [query, setQuery] = useState('');
  const log = useAsync(
    () => client.request<{ total: number; entries: Entry[] }>('GET', `/audit?limit=200${query}`),
    [query],
  );
  // Who, by name where this page can know it (the root user sees every user and node).
  const users = useAsync(() => client.user.list(), []);
  const nodes = useAsync(() => client.node.list(), []);
  const who = (a: NonNullable<Entry['actor']>): string => {
    const name =
      a.kind === 'user'
        ? users.data?.find((u) => u.id === a.id)?.username
        : a.kind === 'node'
          ? nodes.data?.find((n) => n.id === a.id)?.name
          : undefined;
    return name ? `${a.kind} ${name} (${a.id})` : `${a.kind} ${a.id}`;
  };
  const verify = useAction();
  const [verdict, setVerdict] = useState<{ ok: boolean; text: string } | null>(null);
  const search = (e: FormEvent): void => {
    e.preventDefault();
    const q = new URLSearchParams();
    if (form.event) q.set('event', form.event);
    if (form.kind) q.set('actor_kind', form.kind);
    if (form.id) q.set('actor_id', form.id);
    if (form.from) q.set('from', iso(form.from));
    if (form.till) q.set('till', iso(form.till));
    setQuery(q.size > 0 ? `&${q.toString()}` : '');
  };
  const set = (key: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [key]: v }));
  return (
    <section>
      <div className="titlebar">
        <h1>Audit log</h1>
        <div className="actions">
          <button
            type="button"
            disabled={verify.busy}
            onClick={() =>
              void verify
                .run(() => client.request<{ ok: boolean; text: string }>('GET', '/audit/verify'))
                .then((v) => v && setVerdict(v))
            }
          >
            {verify.busy ? 'Verifying…' : 'Verify the chain'}
          </button>
        </div>
      </div>
      <Outcome action={verify} />
      {verdict ? (
        <p className={`notice ${verdict.ok ? 'success' : 'failure'}`} role="status">
          {verdict.ok ? 'Intact. ' : 'Tampered with or damaged. '}
          <span className="mono">{verdict.text}</span>
        </p>
      ) : null}
      <form className="card form-grid" onSubmit={search} aria-label="Search the audit log">
        <TextField
          label="Event starts with"
          hint="e.g. task. or user.login"
          value={form.event}
          onChange={set('event')}
        />
        <SelectField
          label="Who"
          value={form.kind}
          onChange={set('kind')}
          empty="Anyone"
          choices={[
            { value: 'user', label: 'a user' },
            { value: 'node', label: 'a node' },
            { value: 'container', label: 'an algorithm container' },
          ]}
        />
        <TextField label="Their id" inputMode="numeric" value={form.id} onChange={set('id')} />
        <TextField label="From" type="datetime-local" value={form.from} onChange={set('from')} />
        <TextField label="Till" type="datetime-local" value={form.till} onChange={set('till')} />
        <div className="wide">
          <button type="submit" className="primary">
            Search
          </button>
        </div>
      </form>
      <ErrorBox error={log.error} />
      {log.loading && !log.data ? <Progress label="Reading the audit log…" /> : null}
      {log.data ? (
        <p className="muted" role="status">
          {log.data.total === 0
            ? 'No entry matches.'
            : `${log.data.total === 1 ? '1 entry matches' : `${log.data.total} entries match`}${
                log.data.total > log.data.entries.length
                  ? `; the newest ${log.data.entries.length} are shown (narrow "Till" for older ones)`
                  : ''
              }.`}
        </p>
      ) : null}
      <Table head={['When', 'What', 'Who', 'Request', 'Status', 'Details']}>
        {(log.data?.entries ?? []).map((e) => (
          <tr key={`${e.seq}-${e.at}-${e.hash as string}`}>
            <td>{formatTime(e.at)}</td>
            <td className="mono">{e.event}</td>
            <td>{e.actor ? who(e.actor) : <span className="muted">no token</span>}</td>
            <td className="mono">{e.route ?? ''}</td>
            <td>{e.status ?? ''}</td>
            <td className="mono">{details(e)}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}
