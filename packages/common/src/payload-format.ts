/**
 * The format of task input and output bytes (docs/container-environment.md): a payload that starts with a short
 * name of ASCII letters and a dot within its first 10 bytes (`json.`, `pickle.`) is in that format, the name
 * compared case-insensitively; anything else is vantage6's legacy format, a bare Python pickle. The same rule as
 * the Python client and tools.
 */

/** The format name is looked for in at most this many leading bytes. */
const PREFIX_WINDOW = 10;

/** `json`, `pickle`, another prefix name (lower-cased), or `legacy` when there is no prefix. */
export type PayloadFormatName = 'json' | 'pickle' | 'legacy' | (string & {});

/** The format of a payload and its body (the bytes after the prefix; all of them for `legacy`). */
export function detectPayloadFormat(bytes: Uint8Array): { format: PayloadFormatName; body: Uint8Array } {
  const head = bytes.subarray(0, PREFIX_WINDOW);
  const dot = head.indexOf(0x2e);
  if (dot <= 0) return { format: 'legacy', body: bytes };
  const name = String.fromCharCode(...head.subarray(0, dot));
  if (!/^[A-Za-z]+$/.test(name)) return { format: 'legacy', body: bytes };
  return { format: name.toLowerCase(), body: bytes.subarray(dot + 1) };
}
