import { readFile } from 'node:fs/promises';

/**
 * `vstore submit` and `vstore review`: an author or reviewer using a store from the command line. They log in to
 * their server (`--server`, the password from FEDERA_PASSWORD) and call the store (`--store`) with that token; a
 * store of its own is told which server they come from (`Server-Url`).
 */
export interface StoreLogin {
  store: string;
  server: string;
  username: string;
  password: string;
}

class StoreCommandError extends Error {}
export { StoreCommandError };

async function login(
  o: StoreLogin,
): Promise<(method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>> {
  const server = o.server.replace(/\/+$/, '');
  const store = o.store.replace(/\/+$/, '');
  const answer = await fetch(`${server}/token/user`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: o.username, password: o.password }),
  }).catch((error: unknown) => {
    throw new StoreCommandError(`the server ${server} cannot be reached: ${(error as Error).message}`);
  });
  const body = (await answer.json().catch(() => ({}))) as { access_token?: string; msg?: string };
  if (!answer.ok || !body.access_token)
    throw new StoreCommandError(`login at ${server} refused: ${body.msg ?? answer.status}`);
  const token = body.access_token;
  // The store inside the server knows its own server's tokens; a store elsewhere is told where they come from.
  const sameServer = new URL(store).origin === new URL(server).origin;
  return async (method, path, payload) => {
    const r = await fetch(`${store}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(sameServer ? {} : { 'server-url': server }),
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
    }).catch((error: unknown) => {
      throw new StoreCommandError(`the store ${store} cannot be reached: ${(error as Error).message}`);
    });
    const json = (await r.json().catch(() => ({}))) as Record<string, unknown>;
    if (!r.ok) throw new StoreCommandError(`${method} ${path}: ${String(json.msg ?? r.status)}`);
    return json;
  };
}

/** Submits the author's JSON file; returns a line for the terminal. */
export async function submitAlgorithm(o: StoreLogin, file: string): Promise<string> {
  let description: unknown;
  try {
    description = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new StoreCommandError(`${file} is not a readable JSON file: ${(error as Error).message}`);
  }
  const call = await login(o);
  const made = await call('POST', '/algorithm', description);
  return `algorithm ${String(made.id)} (${String(made.name)}) submitted: ${String(made.status)}${made.digest ? '' : ' (its image has no digest: pin it before it can be approved)'}`;
}

/** Approves or rejects the caller's open review of an algorithm. */
export async function reviewAlgorithm(
  o: StoreLogin,
  algorithmId: number,
  decision: { approve: true; comment?: string } | { approve: false; comment: string },
): Promise<string> {
  const call = await login(o);
  const me = await call('GET', '/user/me');
  const reviews = (await call('GET', `/review?algorithm_id=${algorithmId}&status=under%20review`)).data as {
    id: number;
    reviewer: { id: number };
  }[];
  const mine = reviews.find((r) => r.reviewer.id === me.id);
  if (!mine) throw new StoreCommandError(`you have no open review of algorithm ${algorithmId}`);
  const outcome = decision.approve
    ? await call(
        'POST',
        `/review/${mine.id}/approve`,
        decision.comment !== undefined ? { comment: decision.comment } : {},
      )
    : await call('POST', `/review/${mine.id}/reject`, { comment: decision.comment });
  return `review ${mine.id} ${decision.approve ? 'approved' : 'rejected'}; algorithm ${algorithmId} is ${String(outcome.algorithm_status)}${outcome.still_needed ? ` (still needed: ${String(outcome.still_needed)})` : ''}`;
}
