/**
 * Task input and output bytes (docs/container-environment.md#input-and-output). A payload that starts with a short format
 * name and a dot (`json.`, `pickle.`) is in that format; anything else is a Python pickle. TypeScript cannot
 * write pickles, so it sends values as `json.` + JSON and raw bytes unchanged.
 */

/** What an input or output can be given as: raw bytes, or any JSON-serializable value. */
export type Payload = Uint8Array | unknown;

const JSON_PREFIX = 'json.';
/** The format name is looked for in at most this many leading bytes. */
const PREFIX_WINDOW = 10;

/**
 * Serializes a payload: bytes are kept as they are, every other value becomes `json.` followed by its JSON.
 * @throws TypeError when the value cannot be serialized to JSON (e.g. `undefined`, a function, a BigInt).
 */
export function serializePayload(value: Payload): Buffer {
  if (value instanceof Uint8Array) return Buffer.from(value);
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`a ${typeof value} cannot be sent as a JSON payload`);
  return Buffer.from(JSON_PREFIX + json, 'utf8');
}

/** The format name of a payload (`json`, `pickle`, lower-cased), or `null` when it has no prefix. */
export function payloadFormat(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, PREFIX_WINDOW));
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head);
  const dot = text.indexOf('.');
  if (dot <= 0 || text.includes('\uFFFD')) return null;
  const name = text.slice(0, dot);
  return /^[A-Za-z][A-Za-z0-9_-]*$/.test(name) ? name.toLowerCase() : null;
}

/**
 * Deserializes output bytes: `json.` payloads become their value; no bytes (a run that wrote no output) become
 * `null`; anything else (a pickle, unknown formats) is returned as the raw bytes and never interpreted
 * (docs/security.md, "Clients: nothing from the wire is executed").
 * @throws SyntaxError when a `json.` payload does not hold valid JSON.
 */
export function deserializePayload(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return null;
  if (payloadFormat(bytes) !== 'json') return Buffer.from(bytes);
  const buffer = Buffer.from(bytes);
  const dot = buffer.indexOf(0x2e);
  return JSON.parse(buffer.subarray(dot + 1).toString('utf8')) as unknown;
}
