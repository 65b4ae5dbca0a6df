/** Administration: the nodes (live status), their API keys (shown once), and the new-node form. */
import { useState, type FormEvent } from 'react';

import { client } from '../../api.js';
import { namedChoices, SelectField, TextField } from '../../components/fields.js';
import { Table } from '../../components/table.js';
import { ErrorBox, Outcome, Progress, Status, formatTime } from '../../components/ui.js';
import { useAction, useAsync } from '../../hooks.js';
import { Link, type Route } from '../../router.js';
import { useMe } from '../../session.js';
import { useLiveNodes } from '../Collaborations.js';

function ApiKeyBox({ shown, onClose }: { shown: { node: string; key: string }; onClose: () => void }) {
  return (
    <div className="card keybox" role="alert">
      <h2>API key of {shown.node}</h2>
      <p>
        Copy it into the node's configuration now: <strong>it is shown only this once</strong> (the server
        keeps only a hash).
      </p>
      <code className="apikey" aria-label="API key">
        {shown.key}
      </code>{' '}
      <button type="button" onClick={() => void navigator.clipboard?.writeText(shown.key)}>
        Copy
      </button>{' '}
      <button type="button" onClick={onClose}>
        I have saved it
      </button>
    </div>
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
  const create = useAction();
  // Only the chosen collaboration's members can have a node in it.
  const members = new Set(
    (collabs.data?.find((c) => c.id === Number(newCollab))?.organizations ?? []).map((o) => o.id),
  );
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const made = await create.run(
      () =>
        client.node.create({
          collaborationId: Number(newCollab),
          ...(newOrg ? { organizationId: Number(newOrg) } : {}),
          ...(newName ? { name: newName } : {}),
        }),
      (n) => `Node ${n.name ?? n.id} registered: copy its API key, shown above, now.`,
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
      {shownKey ? <ApiKeyBox shown={shownKey} onClose={() => setShownKey(null)} /> : null}
      <ErrorBox error={nodes.error} />
      <Outcome action={action} />
      {nodes.loading && !nodes.data ? <Progress label="Loading nodes…" /> : null}
      <Table head={['Node', 'Organization', 'Collaboration', 'Status', 'Last seen', 'Actions']}>
        {(nodes.data ?? []).map((n) => (
          <tr key={n.id}>
            <td>
              <Link to={`/node/${n.id}`}>{n.name ?? `node ${n.id}`}</Link>
            </td>
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
                  onClick={() => {
                    const name = n.name ?? `node ${n.id}`;
                    if (
                      window.confirm(
                        `Reset the API key of ${name}? Its current key stops working at once: the node is ` +
                          'cut off until its configuration holds the new key.',
                      )
                    )
                      void action.run(async () => {
                        const key = await client.node.resetApiKey(n.id);
                        setShownKey({ node: name, key });
                      }, `${name} has a new API key, shown above; its old key no longer works.`);
                  }}
                >
                  Reset API key
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() => {
                    const name = n.name ?? `node ${n.id}`;
                    if (window.confirm(`Delete ${name}? Its API key stops working.`))
                      void action
                        .run(() => client.node.delete(n.id), `${name} deleted.`)
                        .then(() => nodes.reload());
                  }}
                >
                  Delete
                </button>
              </div>
            </td>
          </tr>
        ))}
      </Table>
      {me.can('node', 'CREATE') ? (
        <form className="card form-grid" onSubmit={(e) => void submit(e)} aria-label="New node">
          <h2 className="wide">New node</h2>
          <SelectField
            label="Collaboration"
            required
            value={newCollab}
            onChange={(v) => {
              setNewCollab(v);
              setNewOrg('');
            }}
            empty="Choose…"
            choices={namedChoices(collabs.data)}
          />
          <SelectField
            label="Organization"
            hint={newCollab ? 'Default: yours' : 'Choose the collaboration first: its members are offered'}
            value={newOrg}
            onChange={setNewOrg}
            empty="My organization"
            choices={namedChoices(orgs.data?.filter((o) => members.has(o.id)))}
          />
          <TextField label="Name (optional)" value={newName} onChange={setNewName} />
          <div className="wide">
            <Outcome action={create} />
            <button type="submit" className="primary" disabled={create.busy}>
              Create node
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
