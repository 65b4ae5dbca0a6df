/** Collaborations: the list, and one collaboration with its organizations and nodes (live online status). */
import { useEffect, useState, type FormEvent } from 'react';
import type { Node } from '@federa/client';

import { client, onServerEvent } from '../api.js';
import { ErrorBox, Field, Notice, Outcome, Progress, Status, formatTime } from '../components/ui.js';
import { CollaborationAdmin } from './collaboration-admin.js';
import { useAction, useAsync } from '../hooks.js';
import { Link } from '../router.js';
import { useMe } from '../session.js';

export function CollaborationList() {
  const me = useMe();
  const list = useAsync(() => client.collaboration.list(), []);
  const orgs = useAsync(() => client.organization.list(), []);
  const [name, setName] = useState('');
  const [encrypted, setEncrypted] = useState(true);
  const [members, setMembers] = useState<number[]>([]);
  const create = useAction();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const made = await create.run(
      () => client.collaboration.create({ name, encrypted, organizationIds: members }),
      (c) => `Collaboration ${c.name} created.`,
    );
    if (made) {
      setName('');
      setMembers([]);
      list.reload();
    }
  };
  return (
    <section>
      <h1>Collaborations</h1>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Progress label="Loading collaborations…" /> : null}
      <ul className="cards">
        {(list.data ?? []).map((c) => (
          <li key={c.id} className="card">
            <h2>
              <Link to={`/collaboration/${c.id}`}>{c.name}</Link>
            </h2>
            <p>
              <span className={`badge ${c.encrypted ? 'badge-on' : ''}`}>
                {c.encrypted ? 'encrypted' : 'not encrypted'}
              </span>{' '}
              · {c.organizations?.length ?? 0} organizations · {c.nodes?.length ?? 0} nodes
            </p>
            <p>
              <Link to={`/tasks?collaboration=${c.id}`}>Tasks</Link> ·{' '}
              <Link to={`/new-task?collaboration=${c.id}`}>New task</Link>
            </p>
          </li>
        ))}
        {list.data?.length === 0 ? <li>You are in no collaboration yet.</li> : null}
      </ul>
      {me.can('collaboration', 'CREATE') ? (
        <form className="card" onSubmit={(e) => void submit(e)} aria-label="New collaboration">
          <h2>New collaboration</h2>
          <Field label="Name">
            {(id) => <input id={id} required value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <label className="check">
            <input type="checkbox" checked={encrypted} onChange={(e) => setEncrypted(e.target.checked)} />{' '}
            Encrypted (end-to-end)
          </label>
          <fieldset>
            <legend>Member organizations</legend>
            {(orgs.data ?? []).map((o) => (
              <label key={o.id} className="check">
                <input
                  type="checkbox"
                  checked={members.includes(o.id)}
                  onChange={(e) =>
                    setMembers(e.target.checked ? [...members, o.id] : members.filter((x) => x !== o.id))
                  }
                />
                {o.name}
              </label>
            ))}
          </fieldset>
          <Outcome action={create} />
          <button type="submit" className="primary" disabled={create.busy}>
            Create
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** Node statuses that follow `node-online` / `node-offline` events. */
export function useLiveNodes(load: () => Promise<Node[]>, deps: readonly unknown[]) {
  const nodes = useAsync(load, deps);
  const [status, setStatus] = useState<Record<number, 'online' | 'offline'>>({});
  useEffect(() => {
    setStatus({});
  }, [nodes.data]);
  useEffect(
    () =>
      onServerEvent((event, payload) => {
        if (event !== 'node-online' && event !== 'node-offline') return;
        const id = (payload as { id?: unknown } | null)?.id;
        if (typeof id === 'number')
          setStatus((s) => ({ ...s, [id]: event === 'node-online' ? 'online' : 'offline' }));
      }),
    [],
  );
  return { ...nodes, statusOf: (n: Node) => status[n.id] ?? n.status ?? 'offline' };
}

export function CollaborationPage({ id }: { id: number }) {
  const me = useMe();
  const collab = useAsync(() => client.collaboration.get(id), [id]);
  const orgs = useAsync(() => client.collaboration.organizations(id), [id]);
  const nodes = useLiveNodes(() => client.collaboration.nodes(id), [id]);
  const all = useAsync(
    () => (me.can('organization', 'VIEW', ['GLOBAL']) ? client.organization.list() : Promise.resolve([])),
    [me],
  );
  const [add, setAdd] = useState('');
  const change = useAction();
  const c = collab.data;
  if (collab.error) return <ErrorBox error={collab.error} />;
  if (!c) return <Progress label="Loading the collaboration…" />;
  const editable = me.can('collaboration', 'EDIT');
  return (
    <section>
      <div className="titlebar">
        <h1>
          {c.name}{' '}
          <span className={`badge ${c.encrypted ? 'badge-on' : ''}`}>
            {c.encrypted ? 'encrypted' : 'not encrypted'}
          </span>
        </h1>
        <div className="actions">
          <Link to={`/tasks?collaboration=${c.id}`} className="button">
            Tasks
          </Link>
          <Link to={`/new-task?collaboration=${c.id}`} className="button primary">
            New task
          </Link>
        </div>
      </div>
      <CollaborationAdmin collab={c} onChanged={collab.reload} />
      <div className="columns">
        <div className="card grow">
          <h2>Organizations</h2>
          <div className="table-box" tabIndex={0}>
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Public key</th>
                  <th>Node</th>
                  {editable ? <th /> : null}
                </tr>
              </thead>
              <tbody>
                {(orgs.data ?? []).map((o) => {
                  const node = nodes.data?.find((n) => n.organization.id === o.id);
                  return (
                    <tr key={o.id}>
                      <td>{o.name}</td>
                      <td>{o.public_key ? 'uploaded' : <span className="muted">none yet</span>}</td>
                      <td>
                        {node ? (
                          <Status value={nodes.statusOf(node)} />
                        ) : (
                          <span className="muted">no node</span>
                        )}
                      </td>
                      {editable ? (
                        <td>
                          <button
                            type="button"
                            onClick={() => {
                              if (
                                window.confirm(
                                  `Remove ${o.name} from this collaboration? Its node no longer takes part and ` +
                                    "its users lose access to the collaboration's tasks.",
                                )
                              )
                                void change
                                  .run(
                                    () => client.collaboration.removeOrganization(id, o.id),
                                    `${o.name} is no longer in ${c.name}.`,
                                  )
                                  .then(() => orgs.reload());
                            }}
                          >
                            Remove
                          </button>
                        </td>
                      ) : null}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {editable && (all.data ?? []).length > 0 ? (
            <form
              className="inline"
              onSubmit={(e) => {
                e.preventDefault();
                const added = all.data?.find((o) => o.id === Number(add))?.name ?? 'The organization';
                void change
                  .run(
                    () => client.collaboration.addOrganization(id, Number(add)),
                    `${added} is now in ${c.name}.`,
                  )
                  .then(() => {
                    setAdd('');
                    orgs.reload();
                  });
              }}
            >
              <Field label="Add organization">
                {(fid) => (
                  <select id={fid} value={add} onChange={(e) => setAdd(e.target.value)} required>
                    <option value="">Choose…</option>
                    {(all.data ?? [])
                      .filter((o) => !orgs.data?.some((m) => m.id === o.id))
                      .map((o) => (
                        <option key={o.id} value={o.id}>
                          {o.name}
                        </option>
                      ))}
                  </select>
                )}
              </Field>
              <button type="submit">Add</button>
            </form>
          ) : null}
          <Outcome action={change} />
        </div>
        <div className="card grow">
          <h2>Nodes</h2>
          <NodeTable
            nodes={nodes.data ?? []}
            statusOf={nodes.statusOf}
            orgName={(orgId) => orgs.data?.find((o) => o.id === orgId)?.name ?? `#${orgId}`}
          />
          <p>
            <Link to={`/nodes?collaboration=${id}`}>Manage nodes</Link>
          </p>
        </div>
      </div>
    </section>
  );
}

export function NodeTable(props: {
  nodes: Node[];
  statusOf: (n: Node) => string;
  orgName: (id: number) => string;
}) {
  const { nodes, statusOf, orgName } = props;
  return (
    <div className="table-box" tabIndex={0}>
      <table className="table">
        <thead>
          <tr>
            <th>Node</th>
            <th>Organization</th>
            <th>Status</th>
            <th>Last seen</th>
          </tr>
        </thead>
        <tbody>
          {nodes.map((n) => (
            <tr key={n.id}>
              <td>
                <Link to={`/node/${n.id}`}>{n.name ?? `node ${n.id}`}</Link>
              </td>
              <td>{orgName(n.organization.id)}</td>
              <td>
                <Status value={statusOf(n)} />
              </td>
              <td>{formatTime(n.last_seen)}</td>
            </tr>
          ))}
          {nodes.length === 0 ? (
            <tr>
              <td colSpan={4}>No nodes.</td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}

export { Notice };
