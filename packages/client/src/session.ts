/**
 * A logged-in user's tokens, and requests made with them. The access token is refreshed shortly before it
 * expires and once more when the server answers 401 "Token has expired"; a request is retried at most once.
 */
import { AuthenticationError, apiErrorFor, isExpiredToken } from './errors.js';
import { isFailure, type HttpAnswer, type HttpTransport, type RequestSpec } from './http.js';
import { decodeJwt, tokenExpiresAt } from '@federa/common';

/** The body of a successful `POST /token/user` or `POST /token/refresh`. */
interface TokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  user_url?: unknown;
  msg?: unknown;
}

/** Options of a {@link Session}. */
export interface SessionOptions {
  /** Refresh the access token when it expires within this many seconds. Negative: only refresh on a 401. */
  refreshMarginSeconds: number;
  /** Receives status messages (never a password or token). */
  log: (message: string) => void;
}

const NOT_LOGGED_IN = 'Not logged in: call authenticate(username, password) first.';

/** Holds the access and refresh tokens of one user and sends authenticated requests. */
export class Session {
  readonly #transport: HttpTransport;
  readonly #options: SessionOptions;
  #accessToken: string | null = null;
  #refreshToken: string | null = null;
  #refreshing: Promise<void> | null = null;
  #userId: number | null = null;

  constructor(transport: HttpTransport, options: SessionOptions) {
    this.#transport = transport;
    this.#options = options;
  }

  /** True after a successful login. */
  get loggedIn(): boolean {
    return this.#accessToken !== null;
  }

  /** Id of the logged-in user, or `null` before login. */
  get userId(): number | null {
    return this.#userId;
  }

  /** The current access token (for socket connections), refreshed first when it is about to expire. */
  async accessToken(): Promise<string> {
    const token = this.#accessToken;
    if (token === null) throw this.#notLoggedIn();
    const expiresAt = tokenExpiresAt(token);
    const margin = this.#options.refreshMarginSeconds;
    if (margin >= 0 && expiresAt !== null && expiresAt - Date.now() <= margin * 1000) {
      await this.refresh();
      return this.#accessToken ?? token;
    }
    return token;
  }

  /**
   * Logs in with `POST /token/user`. The password is sent once and not kept.
   * @throws AuthenticationError when the server refuses the credentials or asks for a 2FA step.
   */
  async login(username: string, password: string, mfaCode?: string): Promise<void> {
    this.forget();
    const answer = await this.#transport.send({
      method: 'POST',
      path: '/token/user',
      body: { username, password, ...(mfaCode !== undefined ? { mfa_code: mfaCode } : {}) },
    });
    if (isFailure(answer)) {
      const { details } = answer;
      if (details.status === 401 || details.status === 400) {
        throw new AuthenticationError(
          details,
          `Login of "${username}" failed: ${details.serverMessage} Check the username and password.`,
        );
      }
      throw apiErrorFor(details);
    }
    const body = (answer.body ?? {}) as TokenAnswer;
    if (typeof body.access_token !== 'string') {
      const msg = typeof body.msg === 'string' ? body.msg : 'the answer holds no access token';
      throw new AuthenticationError(
        { status: answer.status, code: null, serverMessage: msg, method: 'POST', path: '/token/user' },
        `Login of "${username}" did not complete: ${msg} (does the server require two-factor authentication?)`,
      );
    }
    this.#store(body);
    this.#options.log(`Logged in as "${username}" (user id ${this.#userId ?? '?'}).`);
  }

  /** The tokens, to keep a session across page loads (the web UI keeps them in `sessionStorage`). */
  get tokens(): { accessToken: string; refreshToken: string | null } | null {
    return this.#accessToken === null
      ? null
      : { accessToken: this.#accessToken, refreshToken: this.#refreshToken };
  }

  /** Continues a session with tokens saved from {@link tokens}; nothing is sent until the next request. */
  resume(tokens: { accessToken: string; refreshToken: string | null }): void {
    this.#store({ access_token: tokens.accessToken, refresh_token: tokens.refreshToken ?? undefined });
  }

  /**
   * Ends the session on the server (`POST /token/logout`: its access and refresh tokens are refused afterwards)
   * and forgets the tokens. The tokens are forgotten first and in any case, so a server that cannot be reached
   * or refuses leaves nothing usable here; the answer says whether the server ended the session.
   */
  async logout(): Promise<{ ended: boolean; message: string }> {
    const token = this.#accessToken;
    this.forget();
    if (token === null) return { ended: false, message: 'Not logged in: nothing to end.' };
    let message: string;
    try {
      const answer = await this.#transport.send({ method: 'POST', path: '/token/logout', token });
      if (!isFailure(answer)) {
        this.#options.log('Logged out: the server ended the session.');
        return { ended: true, message: 'Logged out: the server ended the session.' };
      }
      message =
        answer.details.status === 401
          ? `the server holds the session as already over (${answer.details.serverMessage})`
          : `the server refused to end the session (${answer.details.serverMessage})`;
    } catch (error) {
      message = `the server could not be reached (${error instanceof Error ? error.message : String(error)})`;
    }
    const text = `Logged out locally: the tokens are forgotten, but ${message}.`;
    this.#options.log(text);
    return { ended: false, message: text };
  }

  /** Forgets the tokens without telling the server (the session stays valid there until it expires). */
  forget(): void {
    this.#accessToken = null;
    this.#refreshToken = null;
    this.#userId = null;
  }

  /**
   * Gets a new access token with the refresh token (`POST /token/refresh`). Concurrent callers share one
   * refresh.
   * @throws AuthenticationError when there is no refresh token or the server refuses it.
   */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#doRefresh().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #doRefresh(): Promise<void> {
    const refreshToken = this.#refreshToken;
    if (refreshToken === null) throw this.#notLoggedIn();
    const answer = await this.#transport.send({
      method: 'POST',
      path: '/token/refresh',
      token: refreshToken,
    });
    if (isFailure(answer)) {
      this.forget();
      throw new AuthenticationError(
        answer.details,
        `The session expired and could not be refreshed (${answer.details.serverMessage}). ` +
          'Log in again with authenticate(username, password).',
      );
    }
    const body = (answer.body ?? {}) as TokenAnswer;
    if (typeof body.access_token !== 'string') {
      throw new AuthenticationError(
        {
          status: answer.status,
          code: null,
          serverMessage: 'no access token in the answer',
          method: 'POST',
          path: '/token/refresh',
        },
        'The server answered the token refresh without an access token. Log in again.',
      );
    }
    this.#store(body);
    this.#options.log('Refreshed the access token.');
  }

  /**
   * Sends an authenticated request. On 401 "Token has expired" it refreshes once and retries once.
   * @throws FederaApiError (or a subclass) for error answers, ConnectionError when unreachable.
   */
  async request(spec: Omit<RequestSpec, 'token'>): Promise<HttpAnswer> {
    const first = await this.#transport.send({ ...spec, token: await this.accessToken() });
    if (!isFailure(first)) return first;
    const { status, code, serverMessage } = first.details;
    if (!isExpiredToken(status, code, serverMessage) || this.#refreshToken === null) {
      throw apiErrorFor(first.details);
    }
    await this.refresh();
    const second = await this.#transport.send({ ...spec, token: await this.accessToken() });
    if (isFailure(second)) throw apiErrorFor(second.details);
    return second;
  }

  #store(body: TokenAnswer): void {
    this.#accessToken = body.access_token as string;
    if (typeof body.refresh_token === 'string') this.#refreshToken = body.refresh_token;
    const fromUrl = typeof body.user_url === 'string' ? /\/user\/(\d+)$/.exec(body.user_url)?.[1] : undefined;
    if (fromUrl !== undefined) {
      this.#userId = Number(fromUrl);
    } else {
      try {
        const claims = decodeJwt(this.#accessToken);
        const sub = claims.sub ?? claims.identity;
        if (typeof sub === 'number') this.#userId = sub;
      } catch {
        /* keep the previous id */
      }
    }
  }

  #notLoggedIn(): AuthenticationError {
    return new AuthenticationError(
      { status: 401, code: 'not_logged_in', serverMessage: NOT_LOGGED_IN, method: '-', path: '-' },
      NOT_LOGGED_IN,
    );
  }
}
