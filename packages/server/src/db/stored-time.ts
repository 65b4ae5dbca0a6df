/**
 * Timestamps as the database keeps them: naive UTC text `YYYY-MM-DDTHH:MM:SS.ffffff` (http/datetime.ts shows them
 * to callers).
 */
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

export const formatStored = (d: Date, micros = d.getUTCMilliseconds() * 1000): string =>
  `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(micros, 6)}`;

/** Now, in the stored form. */
export const nowStored = (): string => formatStored(new Date());
