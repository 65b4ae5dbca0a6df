/** Loads the organization's private key from a file into this page (it is never sent anywhere). */
import { useState } from 'react';

import { errorText, keyState, loadKeyFile } from '../api.js';
import { ErrorBox } from './ui.js';

export function KeyLoader({ onLoaded }: { onLoaded?: () => void }) {
  const [name, setName] = useState(keyState.fileName);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
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
            const file = e.target.files?.[0];
            if (!file) return;
            setBusy(true);
            setError(null);
            loadKeyFile(file).then(
              () => {
                setName(file.name);
                setBusy(false);
                onLoaded?.();
              },
              (err: unknown) => {
                setError(errorText(err));
                setBusy(false);
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
