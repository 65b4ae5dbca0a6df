/** Administration: the users of an organization, their roles, and the new-user form. */
import { useState, type FormEvent } from 'react';
import type { Role, User } from '@federa/client';

import { client } from '../../api.js';
import { EditForm } from '../../components/EditForm.js';
import { namedChoices, SelectField, TextField } from '../../components/fields.js';
import { Table } from '../../components/table.js';
import { ErrorBox, Notice, Pager, Status } from '../../components/ui.js';
import { useAction, useAsync } from '../../hooks.js';
import { navigate, type Route } from '../../router.js';
import { useMe } from '../../session.js';
import { PER_PAGE } from './per-page.js';

const NAME_FIELDS = [
  ['username', 'Username'],
  ['firstname', 'First name'],
  ['lastname', 'Last name'],
  ['email', 'E-mail'],
] as const;

/** The new-user form; its refusals show where the page shows its others (`action`). */
function NewUserForm(props: {
  orgs: { id: number; name: string | null }[] | undefined;
  roles: Role[] | undefined;
  roleName: (r: Role) => string;
  action: ReturnType<typeof useAction>;
  onSubmit: () => void;
  onCreated: (made: User) => void;
}) {
  const { action } = props;
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
    props.onSubmit();
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
      setForm({ ...form, username: '', firstname: '', lastname: '', email: '', password: '' });
      props.onCreated(made);
    }
  };
  return (
    <form className="card form-grid" onSubmit={(e) => void create(e)} aria-label="New user">
      <h2 className="wide">New user</h2>
      {NAME_FIELDS.map(([k, label]) => (
        <TextField
          key={k}
          label={label}
          required
          value={form[k]}
          onChange={(v) => setForm({ ...form, [k]: v })}
        />
      ))}
      <TextField
        label="Password"
        hint="The server's password policy applies"
        type="password"
        autoComplete="new-password"
        required
        value={form.password}
        onChange={(v) => setForm({ ...form, password: v })}
      />
      <SelectField
        label="Organization"
        value={form.organizationId}
        onChange={(v) => setForm({ ...form, organizationId: v })}
        empty="My organization"
        choices={namedChoices(props.orgs)}
      />
      <SelectField
        label="Role"
        value={form.role}
        onChange={(v) => setForm({ ...form, role: v })}
        empty="None"
        choices={(props.roles ?? []).map((r) => ({ value: r.id, label: props.roleName(r) }))}
      />
      <div className="wide">
        <button type="submit" className="primary" disabled={action.busy}>
          Create user
        </button>
      </div>
    </form>
  );
}

const INTERNAL_ROLES = ['container', 'node'];

export function Users({ route }: { route: Route }) {
  const me = useMe();
  const page = Number(route.query.get('page')) || 1;
  const org = Number(route.query.get('organization')) || undefined;
  const users = useAsync(
    () => client.user.listPage({ organizationId: org }, { page, perPage: PER_PAGE }),
    [page, org],
  );
  const orgs = useAsync(() => client.organization.list(), []);
  // "container" and "node" are the server's own roles for algorithm containers and nodes, never for people.
  const roles = useAsync(
    async () => (await client.role.list()).filter((r) => !INTERNAL_ROLES.includes(r.name)),
    [],
  );
  const [editing, setEditing] = useState<number | null>(null);
  const [chosen, setChosen] = useState<number[]>([]);
  const action = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  const [details, setDetails] = useState<User | null>(null);
  const orgName = (id: number): string => orgs.data?.find((o) => o.id === id)?.name ?? `organization ${id}`;
  const roleName = (r: Role): string =>
    `${r.name}${r.organization ? ` (${orgName(r.organization.id)})` : ''}`;
  return (
    <section>
      <h1>Users</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <SelectField
          label="Organization"
          value={org ?? ''}
          onChange={(v) => navigate(`/users?organization=${v}`)}
          empty="All"
          choices={namedChoices(orgs.data)}
        />
      </form>
      <ErrorBox error={users.error ?? action.error} />
      {saved ? <Notice>{saved}</Notice> : null}
      <Table head={['Username', 'Name', 'Organization', 'Roles', 'Status', '']}>
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
                        window.confirm(
                          `Change the roles of ${u.username} to ${
                            chosen
                              .map((c) => roles.data?.find((r) => r.id === c)?.name ?? `#${c}`)
                              .join(', ') || 'none'
                          }? What they may do changes at their next request.`,
                        ) &&
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
                ) : (
                  <>
                    {me.can('user', 'EDIT') ? (
                      <>
                        <button
                          type="button"
                          onClick={() => {
                            action.clear();
                            setSaved(null);
                            setEditing(u.id);
                            setChosen((u.roles ?? []).map((r) => r.id));
                          }}
                        >
                          Edit roles
                        </button>
                        <button
                          type="button"
                          onClick={() => {
                            action.clear();
                            setSaved(null);
                            setDetails(u);
                          }}
                        >
                          Edit details
                        </button>
                      </>
                    ) : null}
                    {me.can('user', 'DELETE') && u.id !== me.user.id ? (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => {
                          if (
                            !window.confirm(
                              `Delete the user ${u.username} (${u.firstname} ${u.lastname})? They can no longer ` +
                                'log in. This cannot be undone.',
                            )
                          )
                            return;
                          setSaved(null);
                          void action
                            .run(async () => {
                              await client.user.delete(u.id);
                              return true;
                            })
                            .then((ok) => {
                              if (!ok) return;
                              setSaved(`User ${u.username} deleted.`);
                              users.reload();
                            });
                        }}
                      >
                        Delete
                      </button>
                    ) : null}
                  </>
                )}
              </div>
            </td>
          </tr>
        ))}
      </Table>
      {details ? (
        <EditForm
          key={details.id}
          title={`Edit user ${details.username}`}
          busy={action.busy}
          fields={[
            { key: 'firstname', label: 'First name', value: details.firstname ?? '' },
            { key: 'lastname', label: 'Last name', value: details.lastname ?? '' },
            { key: 'email', label: 'E-mail', value: details.email ?? '', type: 'email', required: true },
          ]}
          onCancel={() => setDetails(null)}
          onSave={(v) =>
            void action
              .run(() => client.user.update(details.id, v))
              .then((made) => {
                if (!made) return;
                setDetails(null);
                setSaved(`User ${made.username} saved.`);
                users.reload();
              })
          }
        />
      ) : null}
      {users.data ? (
        <Pager
          page={page}
          perPage={PER_PAGE}
          total={users.data.total}
          onPage={(p) => navigate(`/users?page=${p}${org ? `&organization=${org}` : ''}`)}
        />
      ) : null}
      {me.can('user', 'CREATE') ? (
        <NewUserForm
          orgs={orgs.data}
          roles={roles.data}
          roleName={roleName}
          action={action}
          onSubmit={() => setSaved(null)}
          onCreated={(made) => {
            setSaved(`User ${made.username} created.`);
            users.reload();
          }}
        />
      ) : null}
    </section>
  );
}
