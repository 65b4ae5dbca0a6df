/**
 * Timestamps: stored as naive UTC text `YYYY-MM-DDTHH:MM:SS.ffffff`; served with `+00:00` and the fraction
 * omitted when it is zero (docs/api.md#date-times).
 */
import { formatStored } from '../db/stored-time.js';
import { ApiError } from '../errors.js';

export { formatStored, nowStored } from '../db/stored-time.js';

/** A stored timestamp as the API shows it, or null. */
export const toApiTime = (stored: string | null | undefined): string | null => {
  if (stored === null || stored === undefined) return null;
  const dot = stored.indexOf('.');
  if (dot === -1) return `${stored}+00:00`;
  // Every listing runs this for each timestamp it shows: a scan instead of split and a regular expression.
  for (let i = dot + 1; i < stored.length; i++)
    if (stored.charCodeAt(i) !== 48 /* 0 */) return `${stored}+00:00`;
  return `${stored.slice(0, dot)}+00:00`;
};

const CLIENT_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses a timestamp sent by a node or client: `YYYY-MM-DDTHH:MM:SS[.ffffff][Z|±HH:MM]`. A time without offset is
 * taken as is (vantage6 nodes send local wall-clock time). Returns the stored form, or null when invalid.
 */
export const parseClientTime = (value: string): string | null => {
  const m = CLIENT_TIME.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac = '', offset] = m;
  const micros = Number(frac.padEnd(6, '0'));
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return null;
  let shifted = ms;
  if (offset && offset !== 'Z') {
    const sign = offset.startsWith('-') ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    shifted -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  const date = new Date(shifted);
  if (date.getUTCDate() !== Number(d) && !offset) return null;
  return formatStored(date, micros);
};

/** A `last_seen_from`/`last_seen_till` bound in the stored form: a date, or a date-time (docs/api.md#filters). */
export function timeBound(field: string, value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value.trim())) return value.trim();
  const stored = parseClientTime(value);
  if (stored === null) {
    const text = 'must be an ISO-8601 date or date-time, e.g. 2024-01-31T12:00:00';
    throw new ApiError('validation_failed', `query parameter '${field}' ${text}`, {
      extra: { message: { [field]: text } },
    });
  }
  return stored;
}
