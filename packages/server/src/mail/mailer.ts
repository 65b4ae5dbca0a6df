/** A message to send. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends e-mail. The SMTP implementation is in `smtp-mailer.ts`; tests may pass their own. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  /** A short description for `/health` (host and port, never credentials). */
  describe(): string;
}
