/** Renaming and deleting a collaboration, for those allowed (collaboration EDIT / DELETE). */
import { useState } from 'react';
import type { Collaboration } from '@federa/client';

import { client } from '../api.js';
import { EditForm } from '../components/EditForm.js';
import { Outcome } from '../components/ui.js';
import { flash } from '../flash.js';
import { useAction } from '../hooks.js';
import { navigate } from '../router.js';
import { useMe } from '../session.js';

export function CollaborationAdmin({ collab, onChanged }: { collab: Collaboration; onChanged: () => void }) {
  const me = useMe();
  const [editing, setEditing] = useState(false);
  const action = useAction();
  const canEdit = me.can('collaboration', 'EDIT');
  const canDelete = me.can('collaboration', 'DELETE');
  if (!canEdit && !canDelete) return null;
  return (
    <>
      <div className="actions">
        {canEdit ? (
          <button type="button" onClick={() => setEditing(true)}>
            Rename
          </button>
        ) : null}
        {canDelete ? (
          <button
            type="button"
            className="danger"
            disabled={action.busy}
            onClick={() => {
              if (
                !window.confirm(
                  `Delete the collaboration ${collab.name}? Its organizations leave it; its nodes and tasks stay, ` +
                    'detached from any collaboration. This cannot be undone.',
                )
              )
                return;
              void action
                .run(async () => {
                  await client.collaboration.delete(collab.id);
                  return true;
                })
                .then((ok) => {
                  if (!ok) return;
                  flash(`Collaboration ${collab.name} deleted.`);
                  navigate('/collaborations');
                });
            }}
          >
            Delete collaboration
          </button>
        ) : null}
      </div>
      <Outcome action={action} />
      {editing ? (
        <EditForm
          title={`Rename ${collab.name}`}
          busy={action.busy}
          fields={[{ key: 'name', label: 'Collaboration name', value: collab.name ?? '', required: true }]}
          onCancel={() => setEditing(false)}
          onSave={(v) =>
            void action
              .run(
                () => client.collaboration.update(collab.id, { name: v.name ?? '' }),
                (c) => `Collaboration renamed to ${c.name}.`,
              )
              .then((saved) => {
                if (!saved) return;
                setEditing(false);
                onChanged();
              })
          }
        />
      ) : null}
    </>
  );
}
