export interface JsonResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test helper: JSON bodies of many shapes
  body: any;
}

/** Calls `base + path` with an optional bearer token and JSON body; parses the JSON answer (text otherwise). */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<JsonResponse> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: r.status, body };
}
