import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import { ConfigError } from '@federa/common';
import type { ServerConfig } from '../config/schema.js';
import type { MailMessage, Mailer } from './mailer.js';

export type SmtpConfig = NonNullable<ServerConfig['smtp']>;

/** How the connection to the mail server is protected. */
export type SmtpSecurity = 'implicit-tls' | 'starttls' | 'none';

/** `MAIL_USE_SSL` → TLS from the first byte; else `MAIL_USE_TLS` → STARTTLS, required; else plain text. */
export const smtpSecurity = (smtp: SmtpConfig): SmtpSecurity =>
  smtp.MAIL_USE_SSL ? 'implicit-tls' : smtp.MAIL_USE_TLS ? 'starttls' : 'none';

/** The From address: `smtp.sender`, else `smtp.username` when it is an address, else `noreply@<server>`. */
export const senderAddress = (smtp: SmtpConfig): string =>
  smtp.sender ?? (smtp.username && smtp.username.includes('@') ? smtp.username : `noreply@${smtp.server}`);

/**
 * Sends mail through an SMTP server (nodemailer) as configured by the `smtp` block: `server`, `port`, `username`,
 * `password`, `MAIL_USE_TLS` (STARTTLS, required), `MAIL_USE_SSL` (implicit TLS), `sender`, and `ca_file` to trust
 * a private or self-signed certificate authority. Certificates are always verified.
 */
export class SmtpMailer implements Mailer {
  readonly #transport: Transporter;
  readonly #from: string;
  readonly #description: string;

  /**
   * @param configFile the configuration file, to name it in errors and to resolve a relative `ca_file` against the
   *   current directory.
   * @throws ConfigError when `ca_file` cannot be read.
   */
  constructor(smtp: SmtpConfig, configFile: string) {
    const security = smtpSecurity(smtp);
    let ca: Buffer | undefined;
    if (smtp.ca_file) {
      try {
        ca = readFileSync(resolve(smtp.ca_file));
      } catch (error) {
        throw new ConfigError(
          configFile,
          `cannot read the CA file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
          'smtp.ca_file',
        );
      }
    }
    this.#transport = nodemailer.createTransport({
      host: smtp.server,
      port: smtp.port,
      secure: security === 'implicit-tls',
      requireTLS: security === 'starttls',
      ignoreTLS: security === 'none',
      ...(smtp.username !== undefined && smtp.password !== undefined
        ? { auth: { user: smtp.username, pass: smtp.password } }
        : {}),
      tls: { ...(ca ? { ca } : {}), minVersion: 'TLSv1.2' },
      connectionTimeout: 15_000,
      greetingTimeout: 15_000,
      socketTimeout: 30_000,
    });
    this.#from = senderAddress(smtp);
    this.#description = `smtp://${smtp.server}:${smtp.port} (${security})`;
  }

  async send(message: MailMessage): Promise<void> {
    await this.#transport.sendMail({
      from: this.#from,
      to: message.to,
      subject: message.subject,
      text: message.text,
    });
  }

  describe(): string {
    return this.#description;
  }

  /** Closes pooled connections. */
  close(): void {
    this.#transport.close();
  }
}

/** The mailer of a configuration, or null when no `smtp` block is configured. */
export const createMailer = (config: ServerConfig, configFile: string): SmtpMailer | null =>
  config.smtp ? new SmtpMailer(config.smtp, configFile) : null;
