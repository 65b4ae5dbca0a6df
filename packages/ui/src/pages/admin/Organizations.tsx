/** Administration: the organizations, paginated, and the new-organization form. */
import { useState, type FormEvent } from 'react';

import { client } from '../../api.js';
import { TextField } from '../../components/fields.js';
import { Table } from '../../components/table.js';
import { ErrorBox, Pager, Progress } from '../../components/ui.js';
import { useAction, useAsync } from '../../hooks.js';
import { navigate, type Route } from '../../router.js';
import { useMe } from '../../session.js';
import { PER_PAGE } from './per-page.js';

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
      <Table head={['Id', 'Name', 'Country', 'Domain', 'Public key', 'Collaborations']}>
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
      </Table>
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
          <TextField label="Name" required value={name} onChange={setName} />
          <TextField label="Country" value={country} onChange={setCountry} />
          <TextField label="Domain" value={domain} onChange={setDomain} />
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
