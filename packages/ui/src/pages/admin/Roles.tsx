/** Administration: the roles and, for the one opened, which rules it holds (ticked to give or take). */
import { useState } from 'react';

import { client } from '../../api.js';
import { RuleCells, Table } from '../../components/table.js';
import { ErrorBox } from '../../components/ui.js';
import { useAction, useAsync } from '../../hooks.js';

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
            </Table>
          </div>
        ) : null}
      </div>
    </section>
  );
}
