/** Administration: organizations, nodes (API key shown once), users and their roles and rules. */
import { useState, type FormEvent } from 'react';
import type { Role } from '@federa/client';

import { client } from '../api.js';
import { ErrorBox, Field, Notice, Pager, Progress, Status, formatTime } from '../components/ui.js';
import { useAction, useAsync } from '../hooks.js';
import { navigate, type Route } from '../router.js';
import { useMe } from '../session.js';
import { useLiveNodes } from './Collaborations.js';

const PER_PAGE = 25;

export function Organizations({ route }: { route: Route }) {
  const me = useMe();
  const page = Number(route.query.get('page')) || 1;
  const list = useAsync(() => client.organization.listPage({}, { page, perPage: PER_PAGE }), [page]);
  const [name, setName] = useState('');
  const [country, setCountry] = useState('');
  const [domain, setDomain] = useState('');
  const create = useAction();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const made = await create.run(() => client.organization.create({ name, country, domain }));
    if (made) {
      setName('');
      list.reload();
    }
  };
  return (
    <section>
      <h1>Organizations</h1>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Progress label="Loading organizations…" /> : null}
      <table className="table">
        <thead>
          <tr>
            <th>Id</th>
            <th>Name</th>
            <th>Country</th>
            <th>Domain</th>
            <th>Public key</th>
            <th>Collaborations</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.items ?? []).map((o) => (
            <tr key={o.id}>
              <td>{o.id}</td>
              <td>{o.name}</td>
              <td>{o.country}</td>
              <td>{o.domain}</td>
              <td>{o.public_key ? 'uploaded' : <span className="muted">none</span>}</td>
              <td>{o.collaborations?.length ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data ? (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={list.data.total}
          onPage={(p) => navigate(`/organizations?page=${p}`)}
        />
      ) : null}
      {me.can('organization', 'CREATE') ? (
        <form className="card form-grid" onSubmit={(e) => void submit(e)} aria-label="New organization">
          <h2 className="wide">New organization</h2>
          <Field label="Name">
            {(id) => <input id={id} required value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="Country">
            {(id) => <input id={id} value={country} onChange={(e) => setCountry(e.target.value)} />}
          </Field>
          <Field label="Domain">
            {(id) => <input id={id} value={domain} onChange={(e) => setDomain(e.target.value)} />}
          </Field>
          <ErrorBox error={create.error} />
          <div className="wide">
            <button type="submit" className="primary" disabled={create.busy}>
              Create organization
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}

export function Nodes({ route }: { route: Route }) {
  const me = useMe();
  const collaboration = Number(route.query.get('collaboration')) || undefined;
  const nodes = useLiveNodes(
    () => client.node.list(collaboration ? { collaborationId: collaboration } : {}),
    [collaboration],
  );
  const collabs = useAsync(() => client.collaboration.list(), []);
  const orgs = useAsync(() => client.organization.list(), []);
  const [newCollab, setNewCollab] = useState(collaboration ? String(collaboration) : '');
  const [newOrg, setNewOrg] = useState('');
  const [newName, setNewName] = useState('');
  const [shownKey, setShownKey] = useState<{ node: string; key: string } | null>(null);
  const action = useAction();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const made = await action.run(() =>
      client.node.create({
        collaborationId: Number(newCollab),
        ...(newOrg ? { organizationId: Number(newOrg) } : {}),
        ...(newName ? { name: newName } : {}),
      }),
    );
    if (made) {
      setShownKey({ node: made.name ?? `node ${made.id}`, key: made.api_key });
      setNewName('');
      nodes.reload();
    }
  };
  return (
    <section>
      <h1>Nodes</h1>
      {shownKey ? (
        <div className="card keybox" role="alert">
          <h2>API key of {shownKey.node}</h2>
          <p>
            Copy it into the node's configuration now: <strong>it is shown only this once</strong> (the server
            keeps only a hash).
          </p>
          <code className="apikey" aria-label="API key">
            {shownKey.key}
          </code>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(shownKey.key)}>
            Copy
          </button>{' '}
          <button type="button" onClick={() => setShownKey(null)}>
            I have saved it
          </button>
        </div>
      ) : null}
      <ErrorBox error={nodes.error ?? action.error} />
      {nodes.loading && !nodes.data ? <Progress label="Loading nodes…" /> : null}
      <table className="table">
        <thead>
          <tr>
            <th>Node</th>
            <th>Organization</th>
            <th>Collaboration</th>
            <th>Status</th>
            <th>Last seen</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {(nodes.data ?? []).map((n) => (
            <tr key={n.id}>
              <td>{n.name ?? `node ${n.id}`}</td>
              <td>{orgs.data?.find((o) => o.id === n.organization.id)?.name ?? `#${n.organization.id}`}</td>
              <td>
                {collabs.data?.find((c) => c.id === n.collaboration?.id)?.name ??
                  `#${n.collaboration?.id ?? '—'}`}
              </td>
              <td>
                <Status value={nodes.statusOf(n)} />
              </td>
              <td>{formatTime(n.last_seen)}</td>
              <td>
                <div className="actions">
                  <button
                    type="button"
                    onClick={() =>
                      void action.run(async () => {
                        const key = await client.node.resetApiKey(n.id);
                        setShownKey({ node: n.name ?? `node ${n.id}`, key });
                      })
                    }
                  >
                    Reset API key
                  </button>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      if (window.confirm(`Delete ${n.name ?? `node ${n.id}`}? Its API key stops working.`))
                        void action.run(() => client.node.delete(n.id)).then(() => nodes.reload());
                    }}
                  >
                    Delete
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {me.can('node', 'CREATE') ? (
        <form className="card form-grid" onSubmit={(e) => void submit(e)} aria-label="New node">
          <h2 className="wide">New node</h2>
          <Field label="Collaboration">
            {(id) => (
              <select id={id} required value={newCollab} onChange={(e) => setNewCollab(e.target.value)}>
                <option value="">Choose…</option>
                {(collabs.data ?? []).map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Organization" hint="Default: yours">
            {(id) => (
              <select id={id} value={newOrg} onChange={(e) => setNewOrg(e.target.value)}>
                <option value="">My organization</option>
                {(orgs.data ?? []).map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Name (optional)">
            {(id) => <input id={id} value={newName} onChange={(e) => setNewName(e.target.value)} />}
          </Field>
          <div className="wide">
            <button type="submit" className="primary" disabled={action.busy}>
              Create node
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}

export function Users({ route }: { route: Route }) {
  const me = useMe();
  const page = Number(route.query.get('page')) || 1;
  const org = Number(route.query.get('organization')) || undefined;
  const users = useAsync(
    () => client.user.listPage({ organizationId: org }, { page, perPage: PER_PAGE }),
    [page, org],
  );
  const orgs = useAsync(() => client.organization.list(), []);
  const roles = useAsync(() => client.role.list(), []);
  const [editing, setEditing] = useState<number | null>(null);
  const [chosen, setChosen] = useState<number[]>([]);
  const action = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const [form, setForm] = useState({
    username: '',
    firstname: '',
    lastname: '',
    email: '',
    password: '',
    organizationId: '',
    role: '',
  });
  const create = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setSaved(null);
    const made = await action.run(() =>
      client.user.create({
        username: form.username,
        firstname: form.firstname,
        lastname: form.lastname,
        email: form.email,
        password: form.password,
        ...(form.organizationId ? { organizationId: Number(form.organizationId) } : {}),
        ...(form.role ? { roles: [Number(form.role)] } : {}),
      }),
    );
    if (made) {
      setSaved(`User ${made.username} created.`);
      setForm({ ...form, username: '', firstname: '', lastname: '', email: '', password: '' });
      users.reload();
    }
  };
  const roleName = (r: Role): string => `${r.name}${r.organization ? ` (org ${r.organization.id})` : ''}`;
  return (
    <section>
      <h1>Users</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <Field label="Organization">
          {(id) => (
            <select
              id={id}
              value={org ?? ''}
              onChange={(e) => navigate(`/users?organization=${e.target.value}`)}
            >
              <option value="">All</option>
              {(orgs.data ?? []).map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <ErrorBox error={users.error ?? action.error} />
      {saved ? <Notice>{saved}</Notice> : null}
      <table className="table">
        <thead>
          <tr>
            <th>Username</th>
            <th>Name</th>
            <th>Organization</th>
            <th>Roles</th>
            <th>Status</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(users.data?.items ?? []).map((u) => (
            <tr key={u.id}>
              <td>{u.username}</td>
              <td>
                {u.firstname} {u.lastname}
              </td>
              <td>{orgs.data?.find((o) => o.id === u.organization.id)?.name ?? `#${u.organization.id}`}</td>
              <td>
                {editing === u.id ? (
                  <fieldset className="roles">
                    <legend className="visually-hidden">Roles of {u.username}</legend>
                    {(roles.data ?? []).map((r) => (
                      <label key={r.id} className="check">
                        <input
                          type="checkbox"
                          checked={chosen.includes(r.id)}
                          onChange={(e) =>
                            setChosen(e.target.checked ? [...chosen, r.id] : chosen.filter((x) => x !== r.id))
                          }
                        />
                        {roleName(r)}
                      </label>
                    ))}
                  </fieldset>
                ) : (
                  (u.roles ?? [])
                    .map((ref) => roles.data?.find((r) => r.id === ref.id)?.name ?? `#${ref.id}`)
                    .join(', ') || '—'
                )}
              </td>
              <td>
                <Status value={u.status ?? 'active'} />
              </td>
              <td>
                <div className="actions">
                  {editing === u.id ? (
                    <>
                      <button
                        type="button"
                        className="primary"
                        onClick={() =>
                          void action
                            .run(() => client.user.update(u.id, { roles: chosen }))
                            .then((ok) => {
                              if (ok) {
                                setEditing(null);
                                setSaved(`Roles of ${u.username} saved.`);
                                users.reload();
                              }
                            })
                        }
                      >
                        Save roles
                      </button>
                      <button type="button" onClick={() => setEditing(null)}>
                        Cancel
                      </button>
                    </>
                  ) : me.can('user', 'EDIT') ? (
                    <button
                      type="button"
                      onClick={() => {
                        action.clear();
                        setEditing(u.id);
                        setChosen((u.roles ?? []).map((r) => r.id));
                      }}
                    >
                      Edit roles
                    </button>
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {users.data ? (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={users.data.total}
          onPage={(p) => navigate(`/users?page=${p}${org ? `&organization=${org}` : ''}`)}
        />
      ) : null}
      {me.can('user', 'CREATE') ? (
        <form className="card form-grid" onSubmit={(e) => void create(e)} aria-label="New user">
          <h2 className="wide">New user</h2>
          {(['username', 'firstname', 'lastname', 'email'] as const).map((k) => (
            <Field
              key={k}
              label={
                k === 'firstname'
                  ? 'First name'
                  : k === 'lastname'
                    ? 'Last name'
                    : k === 'email'
                      ? 'E-mail'
                      : 'Username'
              }
            >
              {(id) => (
                <input
                  id={id}
                  required
                  value={form[k]}
                  onChange={(e) => setForm({ ...form, [k]: e.target.value })}
                />
              )}
            </Field>
          ))}
          <Field label="Password" hint="The server's password policy applies">
            {(id) => (
              <input
                id={id}
                type="password"
                autoComplete="new-password"
                required
                value={form.password}
                onChange={(e) => setForm({ ...form, password: e.target.value })}
              />
            )}
          </Field>
          <Field label="Organization">
            {(id) => (
              <select
                id={id}
                value={form.organizationId}
                onChange={(e) => setForm({ ...form, organizationId: e.target.value })}
              >
                <option value="">My organization</option>
                {(orgs.data ?? []).map((o) => (
                  <option key={o.id} value={o.id}>
                    {o.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Role">
            {(id) => (
              <select id={id} value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value })}>
                <option value="">None</option>
                {(roles.data ?? []).map((r) => (
                  <option key={r.id} value={r.id}>
                    {roleName(r)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <div className="wide">
            <button type="submit" className="primary" disabled={action.busy}>
              Create user
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}

export function Roles() {
  const roles = useAsync(() => client.role.list(), []);
  const rules = useAsync(() => client.rule.list(), []);
  const [open, setOpen] = useState<number | null>(null);
  const roleRules = useAsync(() => (open ? client.role.rules(open) : Promise.resolve([])), [open]);
  const action = useAction();
  return (
    <section>
      <h1>Roles and rules</h1>
      <ErrorBox error={roles.error ?? action.error} />
      <div className="columns">
        <ul className="card list">
          {(roles.data ?? []).map((r) => (
            <li key={r.id}>
              <button
                type="button"
                className={open === r.id ? 'link current' : 'link'}
                onClick={() => setOpen(r.id)}
              >
                {r.name}
              </button>{' '}
              <small>{r.organization ? `organization ${r.organization.id}` : 'default role'}</small>
            </li>
          ))}
        </ul>
        {open ? (
          <div className="card grow">
            <h2>Rules of {roles.data?.find((r) => r.id === open)?.name}</h2>
            <p className="muted">
              Tick a rule to give it to the role; the server refuses rules you do not have yourself.
            </p>
            <table className="table">
              <thead>
                <tr>
                  <th>Resource</th>
                  <th>Operation</th>
                  <th>Scope</th>
                  <th>In role</th>
                </tr>
              </thead>
              <tbody>
                {(rules.data ?? []).map((rule) => {
                  const has = (roleRules.data ?? []).some((x) => x.id === rule.id);
                  return (
                    <tr key={rule.id}>
                      <td>{rule.name}</td>
                      <td>{rule.operation}</td>
                      <td>{rule.scope}</td>
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`${rule.name} ${rule.operation} ${rule.scope}`}
                          checked={has}
                          onChange={() =>
                            void action
                              .run(() =>
                                has
                                  ? client.role.removeRule(open, rule.id)
                                  : client.role.addRule(open, rule.id),
                              )
                              .then(() => roleRules.reload())
                          }
                        />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : null}
      </div>
    </section>
  );
}
