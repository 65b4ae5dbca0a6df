/** The new-role form and the edit/delete bar of a custom role, for the Roles page. */
import { useState, type FormEvent } from 'react';
import type { Role } from '@federa/client';

import { client } from '../../api.js';
import { EditForm } from '../../components/EditForm.js';
import { namedChoices, SelectField, TextField } from '../../components/fields.js';
import { Outcome } from '../../components/ui.js';
import { useAction } from '../../hooks.js';
import { useMe } from '../../session.js';

export function NewRoleForm(props: {
  orgs: { id: number; name: string | null }[] | undefined;
  onCreated: (role: Role) => void;
}) {
  const me = useMe();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [org, setOrg] = useState('');
  const create = useAction();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const made = await create.run(
      () =>
        client.role.create({
          name,
          description,
          rules: [],
          ...(org ? { organizationId: Number(org) } : {}),
        }),
      (r) => `Role ${r.name} created, with no rules yet: open it to give it rules.`,
    );
    if (made) {
      setName('');
      setDescription('');
      props.onCreated(made);
    }
  };
  return (
    <form className="card form-grid" onSubmit={(e) => void submit(e)} aria-label="New role">
      <h2 className="wide">New role</h2>
      <TextField label="Role name" required value={name} onChange={setName} />
      <TextField label="Role description" value={description} onChange={setDescription} />
      {me.can('role', 'CREATE', ['GLOBAL']) ? (
        <SelectField
          label="For organization"
          value={org}
          onChange={setOrg}
          empty="My organization"
          choices={namedChoices(props.orgs)}
        />
      ) : null}
      <div className="wide">
        <Outcome action={create} />
        <button type="submit" className="primary" disabled={create.busy}>
          Create role
        </button>
      </div>
    </form>
  );
}

/** Rename or delete a custom role (default roles are never changed here). */
export function RoleBar(props: {
  role: Role;
  orgName: string;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const { role } = props;
  const me = useMe();
  const [editing, setEditing] = useState(false);
  const action = useAction();
  return (
    <>
      <div className="actions">
        {me.can('role', 'EDIT') ? (
          <button type="button" onClick={() => setEditing(true)}>
            Rename or describe
          </button>
        ) : null}
        {me.can('role', 'DELETE') ? (
          <button
            type="button"
            className="danger"
            disabled={action.busy}
            onClick={() => {
              if (
                window.confirm(
                  `Delete the role ${role.name} of ${props.orgName}? Every user who has it loses its rules. ` +
                    'This cannot be undone.',
                )
              )
                void action
                  .run(async () => {
                    await client.role.delete(role.id);
                    return true;
                  })
                  .then((ok) => ok && props.onDeleted());
            }}
          >
            Delete role
          </button>
        ) : null}
      </div>
      <Outcome action={action} />
      {editing ? (
        <EditForm
          title={`Edit role ${role.name}`}
          busy={action.busy}
          fields={[
            { key: 'name', label: 'Role name', value: role.name, required: true },
            { key: 'description', label: 'Role description', value: role.description ?? '' },
          ]}
          onCancel={() => setEditing(false)}
          onSave={(v) =>
            void action
              .run(
                () => client.role.update(role.id, v),
                (r) => `Role ${r.name} saved.`,
              )
              .then((saved) => {
                if (!saved) return;
                setEditing(false);
                props.onChanged();
              })
          }
        />
      ) : null}
    </>
  );
}
