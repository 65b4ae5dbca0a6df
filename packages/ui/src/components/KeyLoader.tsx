/** Loads the organization's private key from a file into this page (it is never sent anywhere). */
import { useState } from 'react';

import { errorText, keyState, loadKeyFile } from '../api.js';
import { useMe } from '../session.js';
import { ErrorBox } from './ui.js';

export function KeyLoader({ onLoaded }: { onLoaded?: () => void }) {
  const [name, setName] = useState(keyState.fileName);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const me = useMe();
  return (
    <div className="keyloader">
      <label className="button-like">
        {name ? `Key: ${name} (change)` : 'Load organization key file…'}
        <input
          type="file"
          className="visually-hidden"
          aria-label="Organization private key file"
          accept=".pem,.key,text/plain"
          onChange={(e) => {
            const input = e.target;
            const file = input.files?.[0];
            if (!file) return;
            setBusy(true);
            setError(null);
            loadKeyFile(file, me.user.organization.id).then(
              () => {
                setName(file.name);
                setBusy(false);
                onLoaded?.();
              },
              (err: unknown) => {
                setError(errorText(err));
                setBusy(false);
                // The same file may be picked again after the message.
                input.value = '';
              },
            );
          }}
        />
      </label>
      {busy ? <span role="status"> reading the key…</span> : null}
      <small> The key stays in this browser tab; it is never uploaded.</small>
      <ErrorBox error={error} />
    </div>
  );
}
