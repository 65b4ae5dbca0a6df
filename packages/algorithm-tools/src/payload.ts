/**
 * Input and output files of an algorithm (docs/container-environment.md#input-and-output): an optional format prefix (`json.`,
 * `pickle.`) within the first bytes, else the legacy format (a Python pickle). The TypeScript tools read and
 * write JSON; pickle is for Python algorithms.
 */

import { detectPayloadFormat, type PayloadFormatName } from '@federa/common/payload-format';

/** `json`, `pickle`, another prefix name (lower-cased), or `legacy` when there is no prefix. */
export type PayloadFormat = PayloadFormatName;

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

/**
 * The format of a payload and where its body starts: the rule of `@federa/common` (any short prefix name is a
 * format; no prefix is the legacy pickle), the same as the Python tools'. Reading is what refuses a format.
 */
export const detectFormat = (bytes: Uint8Array): { format: PayloadFormat; body: Uint8Array } =>
  detectPayloadFormat(bytes);

/** Why these tools refuse a payload of `format` (anything but JSON). */
function refusal(format: PayloadFormat): string {
  if (format === 'legacy')
    return "the payload has no format prefix: it is a Python pickle, which the TypeScript tools do not read; send it as 'json.' + JSON";
  if (format === 'pickle')
    return "the payload is a pickle ('pickle.' prefix), which the TypeScript tools do not read; send it as 'json.' + JSON";
  return `the payload is in the unknown format '${format}'; the TypeScript tools read 'json.' + JSON only`;
}

/** Decodes a payload that must be JSON (prefixed `json.`). */
export function decodeJsonPayload<T = unknown>(bytes: Uint8Array): T {
  const { format, body } = detectFormat(bytes);
  if (format !== 'json') throw new PayloadFormatError(refusal(format));
  return JSON.parse(Buffer.from(body).toString('utf8')) as T;
}

/** `json.` + the JSON of `value`. */
export const encodeJsonPayload = (value: unknown): Buffer =>
  Buffer.from(`json.${JSON.stringify(value ?? null)}`, 'utf8');
