/** Administration: the organizations, paginated, the new-organization form, and editing one (no API deletes them). */
import { useState, type FormEvent } from 'react';
import type { Organization } from '@federa/client';

import { client } from '../../api.js';
import { EditForm } from '../../components/EditForm.js';
import { TextField } from '../../components/fields.js';
import { Table } from '../../components/table.js';
import { ErrorBox, Outcome, Pager, Progress } from '../../components/ui.js';
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
  const [editing, setEditing] = useState<Organization | null>(null);
  const create = useAction();
  const edit = useAction();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const made = await create.run(
      () => client.organization.create({ name, country, domain }),
      (o) => `Organization ${o.name} created.`,
    );
    if (made) {
      setName('');
      setCountry('');
      setDomain('');
      list.reload();
    }
  };
  const canEdit = me.can('organization', 'EDIT');
  return (
    <section>
      <h1>Organizations</h1>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? <Progress label="Loading organizations…" /> : null}
      <Table head={['Name', 'Country', 'Domain', 'Public key', 'Collaborations', '']}>
        {(list.data?.items ?? []).map((o) => (
          <tr key={o.id}>
            <td>{o.name}</td>
            <td>{o.country}</td>
            <td>{o.domain}</td>
            <td>{o.public_key ? 'uploaded' : <span className="muted">none</span>}</td>
            <td>{o.collaborations?.length ?? 0}</td>
            <td>
              {canEdit ? (
                <button
                  type="button"
                  aria-label={`Edit ${o.name}`}
                  onClick={() => {
                    edit.clear();
                    setEditing(o);
                  }}
                >
                  Edit
                </button>
              ) : null}
            </td>
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
      <Outcome action={edit} />
      {editing ? (
        <EditForm
          key={editing.id}
          title={`Edit organization ${editing.name}`}
          busy={edit.busy}
          fields={[
            { key: 'name', label: 'Name', value: editing.name ?? '', required: true },
            { key: 'country', label: 'Country', value: editing.country ?? '' },
            { key: 'domain', label: 'Domain', value: editing.domain ?? '' },
          ]}
          onCancel={() => setEditing(null)}
          onSave={(v) =>
            void edit
              .run(
                () => client.organization.update(editing.id, v),
                (o) => `Organization ${o.name} saved.`,
              )
              .then((saved) => {
                if (!saved) return;
                setEditing(null);
                list.reload();
              })
          }
        />
      ) : null}
      {me.can('organization', 'CREATE') ? (
        <form className="card form-grid" onSubmit={(e) => void submit(e)} aria-label="New organization">
          <h2 className="wide">New organization</h2>
          <TextField label="Name" required value={name} onChange={setName} />
          <TextField label="Country" value={country} onChange={setCountry} />
          <TextField label="Domain" value={domain} onChange={setDomain} />
          <div className="wide">
            <Outcome action={create} />
            <button type="submit" className="primary" disabled={create.busy}>
              Create organization
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
}
