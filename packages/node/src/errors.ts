/** Typed errors of the node; messages say what to do next. */

/** The server refused the API key (POST /token/node answered 401). The node exits. */
export class WrongApiKeyError extends Error {
  constructor(apiBase: string) {
    super(`wrong API key: the server at ${apiBase} refused it; check 'api_key' in the node configuration`);
    this.name = 'WrongApiKeyError';
  }
}

/** A REST call answered with a status above 210 (after the retries that apply). */
export class ServerRequestError extends Error {
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  constructor(method: string, path: string, status: number, body: unknown) {
    const msg =
      typeof body === 'object' && body !== null && 'msg' in body
        ? String((body as { msg: unknown }).msg)
        : JSON.stringify(body);
    super(`${method} ${path} answered ${status}: ${msg}`);
    this.name = 'ServerRequestError';
    this.status = status;
    this.method = method;
    this.path = path;
    this.body = body;
  }
}

/** The node refuses to start (configuration and server disagree, key problems). */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/** The node was stopped while waiting (for the server, a retry). */
export class NodeStoppedError extends Error {
  constructor() {
    super('the node is stopping');
    this.name = 'NodeStoppedError';
  }
}
