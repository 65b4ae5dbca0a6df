import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import PostalMime from 'postal-mime';
import { startTestApp, type TestApp } from '@federa/testing';
import type { MailMessage, Mailer } from '../mail/mailer.js';
import { SmtpMailer, type SmtpConfig } from '../mail/smtp-mailer.js';
import { TokenService } from '../auth/tokens.js';
import { RECOVERY_SENT_MESSAGE } from './recover.js';

/** A parsed message that reached the test SMTP server. */
interface Arrived {
  from: string | undefined;
  to: string[];
  subject: string | undefined;
  text: string;
  secure: boolean;
  user: string | undefined;
}

/** A real SMTP server (npm `smtp-server`) with a self-signed certificate for `localhost`, requiring a login. */
class MailServer {
  readonly messages: Arrived[] = [];
  #waiters: (() => void)[] = [];
  readonly server: SMTPServer;
  port = 0;

  constructor(tls: { key: Buffer; cert: Buffer }, implicitTls: boolean) {
    this.server = new SMTPServer({
      secure: implicitTls,
      key: tls.key,
      cert: tls.cert,
      logger: false,
      disableReverseLookup: true,
      onAuth: (auth, _session, callback) => {
        if (auth.username === 'mailer@example.org' && auth.password === 'smtp-Secret-1')
          return callback(null, { user: auth.username });
        return callback(new Error('Invalid username or password'));
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          void PostalMime.parse(Buffer.concat(chunks)).then((mail) => {
            this.messages.push({
              from: mail.from?.address,
              to: session.envelope.rcptTo.map((r) => r.address),
              subject: mail.subject,
              text: mail.text ?? '',
              secure: session.secure,
              user: session.user as string | undefined,
            });
            for (const w of this.#waiters.splice(0)) w();
            callback();
          });
        });
      },
    });
  }

  async start(): Promise<this> {
    // A client refusing the certificate aborts the handshake; the server reports that as an 'error' event.
    this.server.on('error', () => undefined);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** The next message to `to` (waits up to 10 s). */
  async messageTo(to: string): Promise<Arrived> {
    const end = Date.now() + 10_000;
    for (;;) {
      const m = this.messages.find((x) => x.to.includes(to));
      if (m) return m;
      if (Date.now() > end) throw new Error(`no mail to ${to} arrived`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The server's SMTP mailer, keeping each send the server starts (in the background of a request): once
 * {@link settled}, every mail it set out to send has reached the SMTP server, or failed.
 */
class SettlingMailer implements Mailer {
  readonly #sends: Promise<unknown>[] = [];
  constructor(private readonly inner: Mailer) {}

  send(message: MailMessage): Promise<void> {
    const sent = this.inner.send(message);
    this.#sends.push(sent.catch(() => undefined));
    return sent;
  }

  describe(): string {
    return this.inner.describe();
  }

  async settled(): Promise<void> {
    await Promise.all(this.#sends);
  }
}

let dir: string;
let tls: { key: Buffer; cert: Buffer };
let caFile: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'federa-smtp-'));
  // A self-signed certificate for localhost, made for this test run.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  caFile = join(dir, 'cert.pem');
  tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(caFile) };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const smtpConfig = (port: number, implicitTls: boolean, ca = true): SmtpConfig => ({
  server: 'localhost',
  port,
  username: 'mailer@example.org',
  password: 'smtp-Secret-1',
  MAIL_USE_TLS: !implicitTls,
  MAIL_USE_SSL: implicitTls,
  email_token_validity_minutes: 60,
  ...(ca ? { ca_file: caFile } : {}),
});

const tokenIn = (text: string): string => {
  const m = /\b(eyJ[\w-]+\.[\w-]+\.[\w-]+)\b/.exec(text);
  if (!m?.[1]) throw new Error(`no token in mail: ${text}`);
  return m[1];
};

/** The whole recovery, as a user lives it: ask, read the mail, reset, log in with the new password. */
async function recoverThroughMail(
  t: TestApp,
  mail: MailServer,
  by: 'username' | 'email',
): Promise<{ token: string; message: Arrived; password: string }> {
  const org = await t.fx.organization();
  const user = await t.fx.user(org);
  // A locked account: recovery must unlock it.
  await t.ctx.dbh.db
    .updateTable('user')
    .set({ failed_login_attempts: 99, last_login_attempt: new Date().toISOString().replace('Z', '') })
    .where('id', '=', user.id)
    .execute();
  const asked = await t.api('POST', '/recover/lost', {
    body: by === 'username' ? { username: user.username } : { email: `${user.username}@example.org` },
  });
  expect(asked.status).toBe(200);
  expect(asked.body).toEqual({ msg: RECOVERY_SENT_MESSAGE });
  const message = await mail.messageTo(`${user.username}@example.org`);
  const token = tokenIn(message.text);
  const weak = await t.api('POST', '/recover/reset', { body: { reset_token: token, password: 'short' } });
  expect(weak.status).toBe(400);
  expect(weak.body.code).toBe('password_policy');
  const password = 'Brand-New-Password-2!';
  const reset = await t.api('POST', '/recover/reset', { body: { reset_token: token, password } });
  expect(reset.status).toBe(200);
  expect(await t.login(user.username, password)).toMatch(/^eyJ/);
  expect(
    (await t.api('POST', '/token/user', { body: { username: user.username, password: user.password } }))
      .status,
  ).toBe(401);
  const again = await t.api('POST', '/recover/reset', {
    body: { reset_token: token, password: 'Another-Password-3!' },
  });
  expect(again.status).toBe(400);
  expect(again.body.msg).toMatch(/already used/);
  expect(await t.login(user.username, password)).toMatch(/^eyJ/);
  return { token, message, password };
}

describe('password recovery over SMTP with STARTTLS', () => {
  let t: TestApp;
  let mail: MailServer;
  let mailer: SettlingMailer;
  beforeAll(async () => {
    mail = await new MailServer(tls, false).start();
    const smtp = smtpConfig(mail.port, false);
    mailer = new SettlingMailer(new SmtpMailer(smtp, 'test-config.yaml'));
    t = await startTestApp({ config: { smtp, support_email: 'help@example.org' }, mailer });
  });
  afterAll(async () => {
    await t.close();
    await mail.stop();
  });

  it('mails a reset token over STARTTLS with login; the token resets the password once and unlocks the account', async () => {
    const { message } = await recoverThroughMail(t, mail, 'username');
    expect(message.secure).toBe(true);
    expect(message.user).toBe('mailer@example.org');
    expect(message.from).toBe('mailer@example.org');
    expect(message.subject).toMatch(/password reset/i);
    expect(message.text).toContain('60 minutes');
    expect(message.text).toContain('help@example.org');
  });

  it('finds the account by e-mail address too', async () => {
    await recoverThroughMail(t, mail, 'email');
  });

  it('answers an unknown account exactly as a known one, and sends nothing', async () => {
    const org = await t.fx.organization();
    const user = await t.fx.user(org);
    const known = await t.api('POST', '/recover/lost', { body: { username: user.username } });
    const unknown = await t.api('POST', '/recover/lost', { body: { username: `${user.username}-nobody` } });
    const unknownMail = await t.api('POST', '/recover/lost', { body: { email: 'nobody@example.org' } });
    for (const r of [unknown, unknownMail]) {
      expect(r.status).toBe(known.status);
      expect(r.raw.body).toBe(known.raw.body);
      expect(r.headers['content-type']).toBe(known.headers['content-type']);
    }
    await mailer.settled();
    expect(mail.messages.filter((m) => m.to.includes(`${user.username}@example.org`))).toHaveLength(1);
    expect(mail.messages.filter((m) => m.to.includes('nobody@example.org'))).toEqual([]);
  });

  it('sends one mail per account per reset_mail_interval_minutes, however often and fast it is asked', async () => {
    // Anyone may ask, without logging in: without a pause per account, a script could fill a user's mailbox
    // through the server's own mail account.
    const user = await t.fx.user(await t.fx.organization());
    const to = `${user.username}@example.org`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.api('POST', '/recover/lost', { body: { username: user.username } })),
    );
    for (const r of answers) expect(r.body).toEqual({ msg: RECOVERY_SENT_MESSAGE });
    await mail.messageTo(to);
    const later = await t.api('POST', '/recover/lost', { body: { email: to } });
    expect(later.body).toEqual({ msg: RECOVERY_SENT_MESSAGE });
    await mailer.settled();
    expect(mail.messages.filter((m) => m.to.includes(to))).toHaveLength(1);
    // Once the interval (5 minutes by default) has passed, the next request sends a new mail.
    await t.ctx.dbh.db
      .updateTable('user')
      .set({ reset_mail_at: '2000-01-01T00:00:00.000000' })
      .where('id', '=', user.id)
      .execute();
    await t.api('POST', '/recover/lost', { body: { username: user.username } });
    await mailer.settled();
    expect(mail.messages.filter((m) => m.to.includes(to))).toHaveLength(2);
  });

  it('a reset token stops working once the password or the e-mail address has changed', async () => {
    const org = await t.fx.organization();
    // The password changed after the mail was sent (e.g. the owner noticed and changed it).
    const owner = await t.fx.user(org);
    await t.api('POST', '/recover/lost', { body: { username: owner.username } });
    const token = tokenIn((await mail.messageTo(`${owner.username}@example.org`)).text);
    const changed = await t.api('PATCH', '/password/change', {
      token: await owner.token(),
      body: { current_password: owner.password, new_password: 'Changed-Password-4!' },
    });
    expect(changed.status).toBe(200);
    const stale = await t.api('POST', '/recover/reset', {
      body: { reset_token: token, password: 'Attacker-Password-5!' },
    });
    expect(stale.status).toBe(400);
    expect(stale.body.msg).toMatch(/no longer works.*changed/);
    expect(await t.login(owner.username, 'Changed-Password-4!')).toMatch(/^eyJ/);

    // The e-mail address changed after the mail was sent (the old mailbox may not be the owner's any more).
    const moved = await t.fx.user(org);
    await t.api('POST', '/recover/lost', { body: { username: moved.username } });
    const old = tokenIn((await mail.messageTo(`${moved.username}@example.org`)).text);
    const patched = await t.api('PATCH', `/user/${moved.id}`, {
      token: t.rootToken,
      body: { email: `${moved.username}-new@example.org` },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const refused = await t.api('POST', '/recover/reset', {
      body: { reset_token: old, password: 'Attacker-Password-5!' },
    });
    expect(refused.status).toBe(400);
    expect(await t.login(moved.username, moved.password)).toMatch(/^eyJ/);
  });

  it('needs a username or an e-mail address', async () => {
    const r = await t.api('POST', '/recover/lost', { body: {} });
    expect(r.status).toBe(400);
    expect(r.body.msg).toMatch(/username.*email/);
  });

  it('refuses an undecodable token with 400, a non-reset token with 400 and an expired one with 401', async () => {
    const org = await t.fx.organization();
    const user = await t.fx.user(org);
    const body = (reset_token: string) => ({ body: { reset_token, password: 'Good-Password-9!' } });
    const garbage = await t.api('POST', '/recover/reset', body('not-a-token'));
    expect(garbage.status).toBe(400);
    const access = await t.api('POST', '/recover/reset', body(await user.token()));
    expect(access.status).toBe(400);
    const expired = await new TokenService('test-secret-key-that-is-long-enough', {
      accessSeconds: 60,
      refreshSeconds: 60,
      resetSeconds: 60,
    }).reset(user.id, -60);
    const late = await t.api('POST', '/recover/reset', body(expired));
    expect(late.status).toBe(401);
    expect(late.body.msg).toBe('Token has expired');
    const missing = await t.api('POST', '/recover/reset', { body: { reset_token: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('password');
  });
});

describe('password recovery over SMTP with implicit TLS', () => {
  let t: TestApp;
  let mail: MailServer;
  beforeAll(async () => {
    mail = await new MailServer(tls, true).start();
    const smtp = smtpConfig(mail.port, true);
    t = await startTestApp({ config: { smtp }, mailer: new SmtpMailer(smtp, 'test-config.yaml') });
  });
  afterAll(async () => {
    await t.close();
    await mail.stop();
  });

  it('mails the token over TLS and completes the reset', async () => {
    const { message } = await recoverThroughMail(t, mail, 'username');
    expect(message.secure).toBe(true);
  });

  it('does not trust the self-signed certificate without ca_file', async () => {
    const mailer = new SmtpMailer(smtpConfig(mail.port, true, false), 'test-config.yaml');
    await expect(mailer.send({ to: 'someone@example.org', subject: 's', text: 't' })).rejects.toThrow(
      /certificate/i,
    );
    mailer.close();
  });
});

describe('password recovery without mail configuration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('answers 501 not_configured', async () => {
    const r = await t.api('POST', '/recover/lost', { body: { username: 'root' } });
    expect(r.status).toBe(501);
    expect(r.body).toEqual({
      msg: 'Password recovery by e-mail is not configured on this server',
      code: 'not_configured',
    });
  });
});
