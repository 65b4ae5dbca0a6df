/** The logged-in user's account: details, roles, rules, password change; and the server's health page. */
import { useState, type FormEvent } from 'react';

import { client } from '../api.js';
import { TextField } from '../components/fields.js';
import { RuleCells, Table } from '../components/table.js';
import { ErrorBox, Notice, Progress } from '../components/ui.js';
import { useAction, useAsync } from '../hooks.js';
import { useMe } from '../session.js';

export function Account() {
  const me = useMe();
  const roles = useAsync(() => client.role.list({ userId: me.user.id }), [me]);
  const org = useAsync(() => client.organization.get(me.user.organization.id), [me]);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setDone(false);
    const ok = await change.run(async () => {
      await client.changePassword(current, next);
      return true;
    });
    if (ok) {
      setDone(true);
      setCurrent('');
      setNext('');
    }
  };
  const u = me.user;
  return (
    <section>
      <h1>My account</h1>
      <div className="columns">
        <div className="card grow">
          <dl className="facts">
            <dt>Username</dt>
            <dd>{u.username}</dd>
            <dt>Name</dt>
            <dd>
              {u.firstname} {u.lastname}
            </dd>
            <dt>E-mail</dt>
            <dd>{u.email}</dd>
            <dt>Organization</dt>
            <dd>{org.data?.name ?? `#${u.organization.id}`}</dd>
            <dt>Roles</dt>
            <dd>{(roles.data ?? []).map((r) => r.name).join(', ') || '—'}</dd>
          </dl>
          <form onSubmit={(e) => void submit(e)} aria-label="Change password">
            <h2>Change password</h2>
            <TextField
              label="Current password"
              type="password"
              autoComplete="current-password"
              required
              value={current}
              onChange={setCurrent}
            />
            <TextField
              label="New password"
              type="password"
              autoComplete="new-password"
              required
              value={next}
              onChange={setNext}
            />
            <ErrorBox error={change.error} />
            {done ? <Notice>Your password was changed.</Notice> : null}
            <button type="submit" className="primary" disabled={change.busy}>
              Change password
            </button>
          </form>
        </div>
        <div className="card grow">
          <h2>My rules ({me.rules.length})</h2>
          <Table className="table compact" head={['Resource', 'Operation', 'Scope']}>
            {me.rules.map((r) => (
              <tr key={r.id}>
                <RuleCells rule={r} />
              </tr>
            ))}
          </Table>
        </div>
      </div>
    </section>
  );
}

interface Health {
  database: boolean;
  dialect?: string;
  broker?: boolean | null;
  mail?: string | null;
}

export function HealthPage() {
  const health = useAsync(() => client.request<Health>('GET', '/health'), []);
  const version = useAsync(() => client.request<{ version: string }>('GET', '/version'), []);
  const h = health.data;
  const row = (name: string, ok: boolean | null | undefined, text: string) => (
    <tr>
      <td>{name}</td>
      <td>
        <span className={`status status-${ok === true ? 'ok' : ok === false ? 'bad' : 'off'}`}>
          {ok === true ? 'ok' : ok === false ? 'failing' : 'not used'}
        </span>
      </td>
      <td>{text}</td>
    </tr>
  );
  return (
    <section>
      <div className="titlebar">
        <h1>Server health</h1>
        <button type="button" onClick={health.reload}>
          Check again
        </button>
      </div>
      <ErrorBox error={health.error} />
      {health.loading ? <Progress label="Checking…" /> : null}
      {h ? (
        <Table head={['Part', 'State', 'Details']}>
          {row('Database', h.database, h.dialect ?? '')}
          {row(
            'Message broker',
            h.broker,
            h.broker === null || h.broker === undefined ? 'single instance' : '',
          )}
          <tr>
            <td>Mail (password recovery)</td>
            <td>
              <span className={`status status-${h.mail ? 'ok' : 'off'}`}>
                {h.mail ? 'configured' : 'not configured'}
              </span>
            </td>
            <td className="mono">{h.mail ?? ''}</td>
          </tr>
        </Table>
      ) : null}
      <p className="muted">Server version {version.data?.version ?? '…'}</p>
    </section>
  );
}
