/** Log in, recover a lost password by e-mail, set a new one with the e-mailed token. */
import { useState, type FormEvent } from 'react';

import { client, saveSession } from '../api.js';
import { TextField } from '../components/fields.js';
import { ErrorBox, Field, Notice } from '../components/ui.js';
import { useAction } from '../hooks.js';
import { Link, navigate } from '../router.js';

export function LoginPage({ onLogin }: { onLogin: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [mfa, setMfa] = useState('');
  const login = useAction();
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const ok = await login.run(async () => {
      await client.authenticate(username, password, mfa ? { mfaCode: mfa } : {});
      return true;
    });
    if (ok) {
      saveSession();
      onLogin();
    }
  };
  return (
    <main className="auth">
      <h1>
        <span className="logo" aria-hidden="true">
          ◆
        </span>{' '}
        Federa
      </h1>
      <form onSubmit={(e) => void submit(e)} className="card" aria-label="Log in">
        <h2>Log in</h2>
        <TextField
          label="Username"
          name="username"
          autoComplete="username"
          required
          value={username}
          onChange={setUsername}
        />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={setPassword}
        />
        <TextField
          label="Two-factor code (if your account uses one)"
          name="mfa"
          inputMode="numeric"
          autoComplete="one-time-code"
          value={mfa}
          onChange={setMfa}
        />
        <ErrorBox error={login.error} />
        <button type="submit" className="primary" disabled={login.busy}>
          {login.busy ? 'Logging in…' : 'Log in'}
        </button>
        {passwordRecovery() ? (
          <p>
            <Link to="/recover">Forgot your password?</Link>
          </p>
        ) : (
          <p className="muted">
            Forgot your password? This server sends no e-mail, so it cannot reset it: ask the server's
            administrator.
          </p>
        )}
      </form>
    </main>
  );
}

/** Whether the server can send recovery e-mails (it says so in the page it serves; a dev server says nothing). */
function passwordRecovery(): boolean {
  return document.querySelector('meta[name="federa-password-recovery"]')?.getAttribute('content') !== 'off';
}

export function RecoverPage() {
  const [who, setWho] = useState('');
  const [token, setToken] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const action = useAction();
  const ask = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const msg = await action.run(() =>
      client.recoverPassword(who.includes('@') ? { email: who } : { username: who }),
    );
    if (msg !== undefined) setSent(msg || 'If the account exists, an e-mail is on its way.');
  };
  const reset = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const ok = await action.run(async () => {
      await client.resetPassword(token.trim(), password);
      return true;
    });
    if (ok) setDone(true);
  };
  return (
    <main className="auth">
      <h1>Recover your password</h1>
      <form onSubmit={(e) => void ask(e)} className="card" aria-label="Ask for a reset e-mail">
        <h2>1. Get a reset token by e-mail</h2>
        <TextField label="Username or e-mail address" required value={who} onChange={setWho} />
        <button type="submit">Send the e-mail</button>
        {sent ? <Notice>{sent}</Notice> : null}
      </form>
      <form onSubmit={(e) => void reset(e)} className="card" aria-label="Set a new password">
        <h2>2. Set a new password</h2>
        <Field label="Reset token (from the e-mail)">
          {(id) => (
            <textarea id={id} required rows={3} value={token} onChange={(e) => setToken(e.target.value)} />
          )}
        </Field>
        <TextField
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          value={password}
          onChange={setPassword}
        />
        <button type="submit" className="primary">
          Set the password
        </button>
        {done ? (
          <Notice>
            Your password was changed.{' '}
            <a href="#/" onClick={() => navigate('/')}>
              Log in
            </a>
          </Notice>
        ) : null}
      </form>
      <ErrorBox error={action.error} />
      <p>
        <Link to="/">Back to the login page</Link>
      </p>
    </main>
  );
}
