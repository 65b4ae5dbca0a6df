/**
 * The researcher's client: log in, manage the resources the API has, create encrypted tasks and read their
 * decrypted results.
 */
import { createCryptor, type Cryptor } from '@federa/common';

import { TaskFailedError, logTail } from './errors.js';
import { HttpTransport, type QueryValue } from './http.js';
import type { ClientContext } from './resources/base.js';
import { CollaborationResource } from './resources/collaboration.js';
import { NodeResource } from './resources/node.js';
import { OrganizationResource } from './resources/organization.js';
import { ResultResource } from './resources/result.js';
import { RoleResource } from './resources/role.js';
import { RuleResource } from './resources/rule.js';
import { TaskResource } from './resources/task.js';
import { TaskTraces } from './trace-context.js';
import { StoreResource } from './resources/store.js';
import { UserResource } from './resources/user.js';
import { Session } from './session.js';
import type { DecryptedResult } from './types.js';
import { subscribeToTaskEvents, waitUntil, type SocketSource, type WaitOptions } from './wait.js';

/** Where the server is and how the client behaves. */
export interface UserClientOptions {
  /** Scheme and host of the server, e.g. `http://localhost` or `https://federa.example.org`. */
  host: string;
  /** Port of the server, e.g. `5000` (or `443` behind a TLS proxy). */
  port: number;
  /**
   * Prefix of the API paths.
   * @default "/api"
   */
  apiPath?: string;
  /**
   * How long one HTTP request may take before it fails with a ConnectionError.
   * @default 30000
   */
  timeoutMs?: number;
  /**
   * Refresh the access token this many seconds before it expires. A negative value refreshes only when the
   * server answers 401 "Token has expired".
   * @default 60
   */
  refreshMarginSeconds?: number;
  /**
   * Receives status messages (logins, refreshes, task creation). Never receives a password or a token.
   * @default no logging
   */
  log?: (message: string) => void;
  /**
   * Receives the server's warnings, such as the `warning` of a created task whose receiving nodes are offline
   * (the task still queues). The same text is also returned on the created task (`task.warning`). Pass
   * `() => undefined` to silence them.
   * @default prints `[federa] warning: …` with console.warn
   */
  warn?: (message: string) => void;
}

/** Options of {@link UserClient.authenticate}. */
export interface AuthenticateOptions {
  /** The current 6-digit code when the server requires two-factor authentication. */
  mfaCode?: string;
}

/**
 * A client for people (researchers, administrators). Create it, `authenticate`, call `setupEncryption`, then use
 * the resource groups:
 *
 * ```ts
 * const client = new UserClient({ host: 'http://localhost', port: 5000, apiPath: '/api' });
 * await client.authenticate('root', 'password');
 * await client.setupEncryption(null);
 * const orgs = await client.organization.list();
 * ```
 */
export class UserClient {
  /** Users: list, get, me, create, update, delete. */
  readonly user: UserResource;
  /** Organizations: list, get, create, update. */
  readonly organization: OrganizationResource;
  /** Collaborations and their members, nodes and tasks. */
  readonly collaboration: CollaborationResource;
  /** Nodes: list, get, create (gives the API key), update, delete, resetApiKey. */
  readonly node: NodeResource;
  /** Tasks: list, get, create (encrypts the input), delete, kill, results. */
  readonly task: TaskResource;
  /** The algorithm store inside the server (docs/store.md). */
  readonly store: StoreResource;
  /** Results: list, get, fromTask (outputs decrypted). */
  readonly result: ResultResource;
  /** Roles and their rules. */
  readonly role: RoleResource;
  /** The rule catalogue. */
  readonly rule: RuleResource;

  readonly #transport: HttpTransport;
  readonly #session: Session;
  readonly #log: (message: string) => void;
  #cryptor: Cryptor | null = null;

  /** Creates a client; nothing is sent until {@link authenticate}. */
  constructor(options: UserClientOptions) {
    if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535) {
      throw new RangeError(`port must be an integer from 1 to 65535, got ${options.port}`);
    }
    if (!/^https?:\/\//.test(options.host)) {
      throw new RangeError(`host must start with http:// or https://, got "${options.host}"`);
    }
    this.#log = options.log ?? (() => undefined);
    this.#transport = new HttpTransport(
      { host: options.host, port: options.port, apiPath: options.apiPath ?? '/api' },
      options.timeoutMs ?? 30_000,
    );
    this.#session = new Session(this.#transport, {
      refreshMarginSeconds: options.refreshMarginSeconds ?? 60,
      log: this.#log,
    });
    const ctx: ClientContext = {
      session: this.#session,
      cryptor: () => (this.#cryptor?.encrypted ? this.#cryptor : null),
      log: this.#log,
      warn: options.warn ?? ((message) => console.warn(`[federa] warning: ${message}`)),
      subscribe: (onEvent) => subscribeToTaskEvents(this.#socketSource(), onEvent),
      traces: new TaskTraces(),
    };
    this.user = new UserResource(ctx);
    this.organization = new OrganizationResource(ctx);
    this.collaboration = new CollaborationResource(ctx);
    this.node = new NodeResource(ctx);
    this.result = new ResultResource(ctx);
    this.task = new TaskResource(ctx, this.result);
    this.store = new StoreResource(ctx, this.task);
    this.role = new RoleResource(ctx);
    this.rule = new RuleResource(ctx);
  }

  /** Id of the logged-in user, or `null` before {@link authenticate}. */
  get userId(): number | null {
    return this.#session.userId;
  }

  /** The cryptor set up by {@link setupEncryption}, or `null` before. */
  get cryptor(): Cryptor | null {
    return this.#cryptor;
  }

  /**
   * Logs in. The password is sent once and is neither kept nor logged; later requests use the tokens, which
   * are refreshed transparently.
   * @throws AuthenticationError on a wrong username or password (or a locked account); ConnectionError when
   *   the server cannot be reached.
   */
  async authenticate(username: string, password: string, options: AuthenticateOptions = {}): Promise<void> {
    await this.#session.login(username, password, options.mfaCode);
  }

  /**
   * Ends the session on the server (`POST /token/logout`) and forgets the tokens; later calls need
   * {@link authenticate} again. The tokens are forgotten even when the server cannot be reached: then
   * `ended` is false and `message` (also logged) says why.
   */
  logout(): Promise<{ ended: boolean; message: string }> {
    return this.#session.logout();
  }

  /**
   * Sets up end-to-end encryption with your organization's private key (a PEM file), or forgets the key with
   * `null` (enough for unencrypted collaborations). The key is needed to create tasks in encrypted
   * collaborations and to read outputs encrypted for your organization; whether to encrypt follows each
   * collaboration's `encrypted` flag.
   * @returns the public key of the private key in wire form (base64 of the PEM), to publish as your
   *   organization's `publicKey`; `''` for `null`.
   * @throws EncryptionError when the key file cannot be read or is not an unencrypted RSA key.
   */
  async setupEncryption(privateKeyPath: string | null): Promise<string> {
    this.#cryptor =
      privateKeyPath === null
        ? await createCryptor({ encrypted: false })
        : await createCryptor({ encrypted: true, privateKey: { path: privateKeyPath } });
    this.#log(
      privateKeyPath === null ? 'No private key: unencrypted collaborations only.' : 'Encryption set up.',
    );
    return this.#cryptor.publicKeyBase64;
  }

  /** A current access token (refreshed first when about to expire), for socket connections of your own. */
  accessToken(): Promise<string> {
    return this.#session.accessToken();
  }

  /**
   * The session's tokens, or `null` before {@link authenticate}; {@link resumeSession} continues with them
   * (e.g. after a page reload in the web UI). They are credentials: keep them where only this user can read them.
   */
  get sessionTokens(): { accessToken: string; refreshToken: string | null } | null {
    return this.#session.tokens;
  }

  /** Continues a session from {@link sessionTokens}; an expired access token is refreshed on first use. */
  resumeSession(tokens: { accessToken: string; refreshToken: string | null }): void {
    this.#session.resume(tokens);
  }

  /**
   * Uses a cryptor made elsewhere, e.g. the web UI's, which reads the private key from a file the user picks
   * in the browser (where {@link setupEncryption} cannot read files); `null` forgets it.
   */
  useCryptor(cryptor: Cryptor | null): void {
    this.#cryptor = cryptor;
  }

  /**
   * Waits until every result of the task has finished, then returns the results with their outputs
   * decrypted. Listens to the server's socket.io events and falls back to polling `GET /task/{id}`.
   * @throws WaitTimeoutError when the task does not complete within `options.timeoutMs`.
   * @throws TaskFailedError when a run ended other than `completed` (crashed, failed, not allowed, killed, …):
   *   it names each such run's status and the tail of its log, and keeps every result in `results`.
   */
  async waitForResults(taskId: number, options: WaitOptions = {}): Promise<DecryptedResult[]> {
    const isDone = async (): Promise<boolean> => (await this.task.get(taskId)).complete === true;
    const subscribe =
      options.useSocket === false
        ? null
        : (wake: () => void) =>
            subscribeToTaskEvents(this.#socketSource(), (event) => {
              if (event.kind !== 'log') wake();
            });
    await waitUntil(taskId, isDone, subscribe, options);
    const results = await this.result.fromTask(taskId);
    const failed = results.filter(runFailed).map((run) => ({
      id: run.id,
      organizationId: run.organizationId,
      status: typeof run.status === 'string' && run.status !== '' ? run.status : null,
      logTail: logTail(run.log),
    }));
    if (failed.length > 0) throw new TaskFailedError(taskId, failed, results);
    return results;
  }

  /** Where and how this client opens its sockets (namespace `/tasks`, with the session's token). */
  #socketSource(): SocketSource {
    return {
      origin: this.#transport.origin,
      accessToken: () => this.#session.accessToken(),
      refreshedToken: async () => {
        await this.#session.refresh();
        return this.#session.accessToken();
      },
      log: this.#log,
    };
  }

  /**
   * Changes the logged-in user's password (`PATCH /password/change`). Neither password is kept or logged.
   * @throws AuthenticationError when `currentPassword` is wrong; ValidationError when the new one is refused.
   */
  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    await this.#session.request({
      method: 'PATCH',
      path: '/password/change',
      body: { current_password: currentPassword, new_password: newPassword },
    });
  }

  /**
   * Asks the server to e-mail a password-reset token (`POST /recover/lost`); needs no login. The server
   * answers the same whether or not the account exists.
   * @returns the server's message.
   */
  async recoverPassword(who: { username: string } | { email: string }): Promise<string> {
    const answer = await this.#transport.request({ method: 'POST', path: '/recover/lost', body: who });
    const msg = (answer.body as { msg?: unknown } | null)?.msg;
    return typeof msg === 'string' ? msg : '';
  }

  /**
   * Sets a new password with the token of the reset e-mail (`POST /recover/reset`); needs no login.
   * @throws FederaApiError with the server's reason when the token or the password is refused.
   */
  async resetPassword(resetToken: string, password: string): Promise<void> {
    await this.#transport.request({
      method: 'POST',
      path: '/recover/reset',
      body: { reset_token: resetToken, password },
    });
  }

  /**
   * Sends any API request with the session's token (for endpoints without a helper). `path` is relative to
   * the API prefix; query keys are turned into snake_case.
   */
  async request<T = unknown>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    options: { query?: Record<string, QueryValue>; body?: unknown } = {},
  ): Promise<T> {
    const answer = await this.#session.request({ method, path, ...options });
    return answer.body as T;
  }
}

/**
 * A finished run that did not succeed: a status other than `completed`; from a server that reports no status,
 * a finished run without output.
 */
function runFailed(run: DecryptedResult): boolean {
  if (typeof run.status === 'string' && run.status !== '') return run.status !== 'completed';
  return (
    run.finished_at !== null && run.finished_at !== undefined && (run.result === null || run.result === '')
  );
}
