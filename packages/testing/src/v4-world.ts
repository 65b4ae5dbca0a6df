import { taskWorld } from './task-world.js';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';

/** What a call on the vantage6 4.x surface answered: its status and its JSON body (null when empty). */
export interface V4Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** A call on the 4.x surface: `path` under `/v4/api`, or a link the surface answered (it starts with `/v4/api`). */
export type V4Call = (
  method: string,
  path: string,
  options?: { token?: string | null; body?: unknown },
) => Promise<V4Answer>;

export interface V4CallerOptions {
  /** The token sent when a call names none: root's (the default), or null for none. */
  token?: string | null;
  /** Prefixed to a path that does not start with it (default `/v4/api`; '' sends paths as they are). */
  prefix?: string;
  /** Further request headers (a `host`, as a client behind a proxy sends it). */
  headers?: Record<string, string>;
}

/** Calls the app through `app.inject` as vantage6 4.14's client does: a bearer token and JSON bodies. */
export function v4Caller(t: TestApp, options: V4CallerOptions = {}): V4Call {
  const prefix = options.prefix ?? '/v4/api';
  return async (method, path, o = {}) => {
    const token = o.token ?? (options.token === undefined ? t.rootToken : options.token);
    const res = await t.app.inject({
      method: method as 'GET',
      url: prefix === '' || path.startsWith(prefix) ? path : `${prefix}${path}`,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...options.headers,
        ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(o.body !== undefined ? { payload: JSON.stringify(o.body) } : {}),
    });
    return { status: res.statusCode, body: res.body === '' ? null : JSON.parse(res.body) };
  };
}

/** The 4.x route tests' world: a test app with {@link taskWorld}'s federation and a caller of its 4.x surface. */
export interface V4World {
  t: TestApp;
  w: Awaited<ReturnType<typeof taskWorld>>;
  v4: V4Call;
}

/** Starts a test app, makes its federation (two organizations and nodes, a researcher) and its 4.x caller. */
export async function startV4World(
  options: { app?: TestAppOptions; caller?: V4CallerOptions } = {},
): Promise<V4World> {
  const t = await startTestApp(options.app);
  try {
    return { t, w: await taskWorld(t), v4: v4Caller(t, options.caller) };
  } catch (error) {
    await t.close();
    throw error;
  }
}
