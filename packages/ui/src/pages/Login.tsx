/** Log in, recover a lost password by e-mail, set a new one with the e-mailed token. */
import { useState, type FormEvent } from 'react';

import { client, errorText, saveSession } from '../api.js';
import { ErrorBox, Field, Notice } from '../components/ui.js';
import { Link, navigate } from '../router.js';

export function LoginPage({ onLogin }: { onLogin: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [mfa, setMfa] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await client.authenticate(username, password, mfa ? { mfaCode: mfa } : {});
      saveSession();
      onLogin();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
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
        <Field label="Username">
          {(id) => (
            <input
              id={id}
              name="username"
              autoComplete="username"
              required
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(id) => (
            <input
              id={id}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Field label="Two-factor code (if your account uses one)">
          {(id) => (
            <input
              id={id}
              name="mfa"
              inputMode="numeric"
              autoComplete="one-time-code"
              value={mfa}
              onChange={(e) => setMfa(e.target.value)}
            />
          )}
        </Field>
        <ErrorBox error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
        <p>
          <Link to="/recover">Forgot your password?</Link>
        </p>
      </form>
    </main>
  );
}

export function RecoverPage() {
  const [who, setWho] = useState('');
  const [token, setToken] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ask = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      const msg = await client.recoverPassword(who.includes('@') ? { email: who } : { username: who });
      setSent(msg || 'If the account exists, an e-mail is on its way.');
    } catch (err) {
      setError(errorText(err));
    }
  };
  const reset = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    setError(null);
    try {
      await client.resetPassword(token.trim(), password);
      setDone(true);
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <main className="auth">
      <h1>Recover your password</h1>
      <form onSubmit={(e) => void ask(e)} className="card" aria-label="Ask for a reset e-mail">
        <h2>1. Get a reset token by e-mail</h2>
        <Field label="Username or e-mail address">
          {(id) => <input id={id} required value={who} onChange={(e) => setWho(e.target.value)} />}
        </Field>
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
        <Field label="New password">
          {(id) => (
            <input
              id={id}
              type="password"
              autoComplete="new-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
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
      <ErrorBox error={error} />
      <p>
        <Link to="/">Back to the login page</Link>
      </p>
    </main>
  );
}
