/**
 * Administration: the roles and, for the one opened, which rules it holds (ticked to give or take); custom roles
 * are created, renamed and deleted here; default roles are shown, never changed.
 */
import { useState } from 'react';

import { client } from '../../api.js';
import { RuleCells, Table } from '../../components/table.js';
import { ErrorBox } from '../../components/ui.js';
import { useAction, useAsync } from '../../hooks.js';
import { useMe } from '../../session.js';
import { NewRoleForm, RoleBar } from './role-forms.js';

// The server's own roles for algorithm containers and nodes: listed, and said to be no one's.
const INTERNAL_ROLES = ['container', 'node'];

export function Roles() {
  const me = useMe();
  const roles = useAsync(() => client.role.list(), []);
  const orgs = useAsync(() => client.organization.list(), []);
  const orgName = (id: number): string => orgs.data?.find((o) => o.id === id)?.name ?? `organization ${id}`;
  const rules = useAsync(() => client.rule.list(), []);
  const [open, setOpen] = useState<number | null>(null);
  const roleRules = useAsync(() => (open ? client.role.rules(open) : Promise.resolve([])), [open]);
  const action = useAction();
  const [saved, setSaved] = useState<string | null>(null);
  // Bumped when the page moves on (another role opened, one deleted): the new-role form's old message goes.
  const [formKey, setFormKey] = useState(0);
  const role = roles.data?.find((r) => r.id === open);
  // A default role (no organization) is the same for every organization on the server: shown, never changed here.
  const editable = !!role?.organization;
  return (
    <section>
      <h1>Roles and rules</h1>
      <ErrorBox error={roles.error ?? action.error} />
      {saved ? (
        <p className="notice" role="status">
          {saved}
        </p>
      ) : null}
      <div className="columns">
        <ul className="card list">
          {(roles.data ?? []).map((r) => (
            <li key={r.id}>
              <button
                type="button"
                className={open === r.id ? 'link current' : 'link'}
                onClick={() => {
                  setOpen(r.id);
                  setSaved(null);
                  setFormKey((k) => k + 1);
                }}
              >
                {r.name}
              </button>{' '}
              <small>
                {r.organization
                  ? orgName(r.organization.id)
                  : INTERNAL_ROLES.includes(r.name)
                    ? 'internal role, never given to people'
                    : 'default role'}
              </small>
            </li>
          ))}
        </ul>
        {open ? (
          <div className="card grow">
            <h2>Rules of {role?.name}</h2>
            {role?.organization ? (
              <RoleBar
                key={role.id}
                role={role}
                orgName={orgName(role.organization.id)}
                onChanged={roles.reload}
                onDeleted={() => {
                  setOpen(null);
                  setFormKey((k) => k + 1);
                  setSaved(`Role ${role.name} deleted.`);
                  roles.reload();
                }}
              />
            ) : null}
            <p className="muted">
              {editable
                ? 'Tick a rule to give it to the role; the server refuses rules you do not have yourself.'
                : 'A default role is the same for every organization on this server: it is shown here and cannot be changed.'}
            </p>
            <Table head={['Resource', 'Operation', 'Scope', 'In role']}>
              {(rules.data ?? []).map((rule) => {
                const has = (roleRules.data ?? []).some((x) => x.id === rule.id);
                return (
                  <tr key={rule.id}>
                    <RuleCells rule={rule} />
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`${rule.name} ${rule.operation} ${rule.scope}`}
                        checked={has}
                        disabled={!editable || action.busy}
                        onChange={() => {
                          const what = `${rule.name} ${rule.operation} (${rule.scope})`;
                          if (
                            !window.confirm(
                              has
                                ? `Take the rule ${what} away from the role ${role?.name}? Every user with this role loses it.`
                                : `Give the rule ${what} to the role ${role?.name}? Every user with this role gets it.`,
                            )
                          )
                            return;
                          setSaved(null);
                          void action
                            .run(async () => {
                              await (has
                                ? client.role.removeRule(open, rule.id)
                                : client.role.addRule(open, rule.id));
                              return true;
                            })
                            .then((ok) => {
                              if (ok)
                                setSaved(
                                  has
                                    ? `The role ${role?.name} no longer has ${what}.`
                                    : `The role ${role?.name} now has ${what}.`,
                                );
                              roleRules.reload();
                            });
                        }}
                      />
                    </td>
                  </tr>
                );
              })}
            </Table>
          </div>
        ) : null}
      </div>
      {me.can('role', 'CREATE') ? (
        <NewRoleForm
          key={formKey}
          orgs={orgs.data}
          onCreated={(made) => {
            roles.reload();
            setOpen(made.id);
          }}
        />
      ) : null}
    </section>
  );
}
