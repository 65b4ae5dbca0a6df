/**
 * The one SDK client of the page, the session kept across reloads, the organization key, and the socket.
 * Every API call of the UI goes through `@federa/client`.
 */
import { FederaApiError, UserClient } from '@federa/client';
import { SOCKET_NAMESPACE, SOCKET_PATH, type Cryptor } from '@federa/common';
import { io, type Socket } from 'socket.io-client';

const STORE_KEY = 'federa.session';

/** The API prefix the server wrote into the page (`<meta name="federa-api-path">`), else `/api`. */
export function apiPath(): string {
  const meta = document.querySelector('meta[name="federa-api-path"]');
  return meta?.getAttribute('content') || '/api';
}

function defaultPort(): number {
  if (location.port) return Number(location.port);
  return location.protocol === 'https:' ? 443 : 80;
}

export function createClient(): UserClient {
  return new UserClient({
    host: `${location.protocol}//${location.hostname}`,
    port: defaultPort(),
    apiPath: apiPath(),
  });
}

/** The client of this page. */
export const client = createClient();

/** Saves the tokens in sessionStorage (this tab only, gone when it closes) so a reload keeps the session. */
export function saveSession(): void {
  const tokens = client.sessionTokens;
  if (tokens) sessionStorage.setItem(STORE_KEY, JSON.stringify(tokens));
  else sessionStorage.removeItem(STORE_KEY);
}

// The client rotates its refresh token while the page is open: the stored one is brought up to date whenever
// the page may go away (reload, closing, switching away), so a reload never presents a spent token, which the
// server answers by ending the session (docs/security.md, refresh-token rotation).
if (typeof window !== 'undefined') {
  window.addEventListener('pagehide', () => {
    if (sessionStorage.getItem(STORE_KEY) !== null) saveSession();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden' && sessionStorage.getItem(STORE_KEY) !== null) saveSession();
  });
}

/** Continues a saved session; false when there is none. */
export function resumeSession(): boolean {
  const text = sessionStorage.getItem(STORE_KEY);
  if (!text) return false;
  try {
    const tokens = JSON.parse(text) as { accessToken: string; refreshToken: string | null };
    if (typeof tokens.accessToken !== 'string') return false;
    client.resumeSession(tokens);
    return true;
  } catch {
    return false;
  }
}

/**
 * "Log out": the server ends the session first (`POST /token/logout`), so a copy of the tokens left anywhere no
 * longer works; the page forgets them even when the server cannot be reached.
 */
export async function endSession(): Promise<void> {
  // The client forgets its tokens even when the server is away (it logs so); the page's copy goes below.
  await client.logout();
  logout();
}

export function logout(): void {
  // The tokens are forgotten at once; the server is told to end the session in the background (when it cannot
  // be reached, the client logs so and nothing usable stays in the page).
  void client.logout();
  client.useCryptor(null);
  keyState.fileName = null;
  sessionStorage.removeItem(STORE_KEY);
  closeSocket();
}

/** The organization key loaded in this page (never stored, never sent). */
export const keyState: { fileName: string | null } = { fileName: null };

/**
 * Reads a private key file the user picked, checks it against the public key the server holds for the user's
 * organization, and only then gives the SDK a browser cryptor for it. A wrong key would make every result
 * unreadable, so it is refused with the name of the organization whose key it is (or that it is nobody's here).
 */
export async function loadKeyFile(file: File, organizationId: number): Promise<Cryptor> {
  if (file.size > 64 * 1024) throw new Error(`${file.name} is too large to be a private key file.`);
  const text = await file.text();
  // The crypto code (node-forge) is loaded only when a key is used, to keep the first page small.
  const { BrowserRsaCryptor } = await import('./crypto/browser-cryptor.js');
  let cryptor;
  try {
    cryptor = new BrowserRsaCryptor(text, file.name);
  } catch {
    throw new Error(
      `${file.name} is not a private key file. Choose the organization's key file (it starts with "-----BEGIN").`,
    );
  }
  const own = await client.organization.get(organizationId);
  if (!cryptor.matchesPublicKey(own.public_key)) {
    if (!own.public_key)
      throw new Error(
        `Your organization ${own.name} has no public key on the server yet, so this key cannot be checked. ` +
          `Ask your node administrator to start ${own.name}'s node, which uploads it.`,
      );
    const owner = (await client.organization.list()).find((o) => cryptor.matchesPublicKey(o.public_key));
    throw new Error(
      owner
        ? `${file.name} is the private key of ${owner.name}, not of your organization ${own.name}. ` +
            `Load ${own.name}'s key file.`
        : `${file.name} is not the key of your organization ${own.name}, nor of any organization on this ` +
            `server. Ask ${own.name}'s node administrator for its key file.`,
    );
  }
  client.useCryptor(cryptor);
  keyState.fileName = file.name;
  return cryptor;
}

/** The message to show for a failure: the API's own message for refusals. */
export function errorText(error: unknown): string {
  if (error instanceof FederaApiError) return error.serverMessage;
  // The SDK speaks to programmers ("call setupEncryption(…)"); in the browser the key is loaded with a button.
  if (error instanceof Error && /setupEncryption/.test(error.message))
    return "This is encrypted for your organization: load your organization's private key file to read it.";
  if (error instanceof Error) return error.message;
  return String(error);
}

let socket: Socket | null = null;
const listeners = new Set<(event: string, payload: unknown) => void>();

/**
 * Listens to the server's socket events (namespace `/tasks`, docs/socket-protocol.md). One socket per page;
 * the token goes in the auth payload, as browsers cannot set headers on a WebSocket.
 * @returns a function that stops listening.
 */
export function onServerEvent(listener: (event: string, payload: unknown) => void): () => void {
  listeners.add(listener);
  if (socket?.connected) listener('connect', null);
  void openSocket();
  return () => listeners.delete(listener);
}

let opening: Promise<void> | null = null;

async function openSocket(): Promise<void> {
  if (socket || opening) return;
  opening = (async () => {
    const token = await client.accessToken();
    const s = io(`${location.protocol}//${location.host}${SOCKET_NAMESPACE}`, {
      path: SOCKET_PATH,
      auth: (cb) => {
        client.accessToken().then(
          (t) => cb({ token: t }),
          () => cb({ token }),
        );
      },
    });
    s.onAny((event: string, payload: unknown) => {
      if (event === 'expired_token') {
        s.disconnect();
        setTimeout(() => s.connect(), 1000);
        return;
      }
      for (const l of listeners) l(event, payload);
    });
    s.on('connect', () => {
      for (const l of listeners) l('connect', null);
    });
    socket = s;
  })().finally(() => {
    opening = null;
  });
  await opening;
}

export function closeSocket(): void {
  socket?.close();
  socket = null;
}
