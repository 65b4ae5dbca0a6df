/**
 * One node: its status (followed live), when it was last seen, whose it is, and the configuration it reported at
 * its last start (databases, policies, encryption; docs/socket-protocol.md, `node_info_update`), and when it was
 * online ({@link NodeHistory}).
 */
import { client } from '../../api.js';
import { Table } from '../../components/table.js';
import { ErrorBox, Progress, Status, formatTime } from '../../components/ui.js';
import { useAsync } from '../../hooks.js';
import { Link } from '../../router.js';
import { useLiveNodes } from '../Collaborations.js';
import { NodeHistory } from './NodeHistory.js';

export function NodePage({ id }: { id: number }) {
  const nodes = useLiveNodes(async () => [await client.node.get(id)], [id]);
  const n = nodes.data?.[0];
  const org = useAsync(
    () => (n ? client.organization.get(n.organization.id) : Promise.resolve(null)),
    [n?.organization.id],
  );
  const collabId = n?.collaboration?.id;
  const collab = useAsync(
    () => (collabId ? client.collaboration.get(collabId) : Promise.resolve(null)),
    [collabId],
  );
  if (nodes.error) return <ErrorBox error={nodes.error} />;
  if (!n) return <Progress label={`Loading node ${id}…`} />;
  const status = nodes.statusOf(n);
  // Keys repeat, one row per element of a list (e.g. each allowed algorithm): shown together.
  const config = new Map<string, string[]>();
  for (const { key, value } of n.config) config.set(key, [...(config.get(key) ?? []), value]);
  return (
    <section>
      <h1>
        Node {n.name ?? `#${n.id}`} <Status value={status} />
      </h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          {status === 'online'
            ? 'Online: connected to the server now.'
            : 'Offline: tasks for it wait until its node administrator starts it (vnode start).'}
        </dd>
        <dt>Last seen</dt>
        <dd>{n.last_seen ? formatTime(n.last_seen) : 'never: it has not connected yet'}</dd>
        <dt>Organization</dt>
        <dd>{org.data?.name ?? `#${n.organization.id}`}</dd>
        <dt>Collaboration</dt>
        <dd>
          {n.collaboration ? (
            <Link to={`/collaboration/${n.collaboration.id}`}>
              {collab.data?.name ?? `#${n.collaboration.id}`}
            </Link>
          ) : (
            'none'
          )}
        </dd>
        <dt>VPN address</dt>
        <dd>{n.ip ?? 'none'}</dd>
      </dl>
      <div className="card">
        <h2>Reported configuration</h2>
        {config.size === 0 ? (
          <p className="muted">
            Nothing reported: the node shares its databases, policies and encryption setting when it connects.
          </p>
        ) : (
          <Table head={['Setting', 'Value']}>
            {[...config].map(([key, values]) => (
              <tr key={key}>
                <td className="mono">{key}</td>
                <td className="mono">{values.join(', ')}</td>
              </tr>
            ))}
          </Table>
        )}
      </div>
      <NodeHistory id={n.id} status={status} lastSeen={n.last_seen} />
      <p>
        <Link to="/nodes">All nodes</Link>
      </p>
    </section>
  );
}
