/**
 * Task input and output bytes (docs/container-environment.md#input-and-output): the format prefix is read by
 * `detectPayloadFormat` of `@federa/common`. TypeScript cannot write pickles, so it sends values as `json.` + JSON
 * and raw bytes unchanged.
 */
import { detectPayloadFormat } from '@federa/common';

/** What an input or output can be given as: raw bytes, or any JSON-serializable value. */
export type Payload = Uint8Array | unknown;

const JSON_PREFIX = 'json.';

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
  const { format } = detectPayloadFormat(bytes);
  return format === 'legacy' ? null : format;
}

/**
 * Deserializes output bytes: `json.` payloads become their value; no bytes (a run that wrote no output) become
 * `null`; anything else (a pickle, unknown formats) is returned as the raw bytes and never interpreted
 * (docs/security.md, "Clients: nothing from the wire is executed").
 * @throws SyntaxError when a `json.` payload does not hold valid JSON.
 */
export function deserializePayload(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return null;
  const { format, body } = detectPayloadFormat(bytes);
  if (format !== 'json') return Buffer.from(bytes);
  return JSON.parse(Buffer.from(body).toString('utf8')) as unknown;
}
