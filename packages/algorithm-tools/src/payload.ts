/**
 * Input and output files of an algorithm (docs/container-environment.md#input-and-output): an optional format prefix (`json.`,
 * `pickle.`) within the first bytes, else the legacy format (a Python pickle). The TypeScript tools read and
 * write JSON; pickle is for Python algorithms.
 */

export type PayloadFormat = 'json' | 'pickle' | 'legacy';

export interface AlgorithmInput {
  readonly method: string;
  readonly args?: readonly unknown[];
  readonly kwargs?: Readonly<Record<string, unknown>>;
  readonly master?: boolean;
  readonly output_format?: string;
  readonly [key: string]: unknown;
}

export class PayloadFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadFormatError';
  }
}

/** The format of a payload and where its body starts. */
export function detectFormat(bytes: Uint8Array): { format: PayloadFormat; body: Uint8Array } {
  const head = Buffer.from(bytes.subarray(0, 10)).toString('latin1');
  const dot = head.indexOf('.');
  if (dot > 0 && /^[A-Za-z]+$/.test(head.slice(0, dot))) {
    const name = head.slice(0, dot).toLowerCase();
    if (name === 'json' || name === 'pickle') return { format: name, body: bytes.subarray(dot + 1) };
    throw new PayloadFormatError(`unknown payload format '${name}' (expected json or pickle)`);
  }
  return { format: 'legacy', body: bytes };
}

/** Decodes a payload that must be JSON (prefixed `json.`). */
export function decodeJsonPayload<T = unknown>(bytes: Uint8Array): T {
  const { format, body } = detectFormat(bytes);
  if (format !== 'json') {
    throw new PayloadFormatError(
      `the payload is ${format === 'legacy' ? 'a Python pickle (no format prefix)' : 'a pickle'}; the TypeScript tools read JSON only: send it as 'json.' + JSON`,
    );
  }
  return JSON.parse(Buffer.from(body).toString('utf8')) as T;
}

/** `json.` + the JSON of `value`. */
export const encodeJsonPayload = (value: unknown): Buffer =>
  Buffer.from(`json.${JSON.stringify(value ?? null)}`, 'utf8');
