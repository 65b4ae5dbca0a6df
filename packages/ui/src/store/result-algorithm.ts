/**
 * The algorithm a task's results page draws with, read from what a store answered. A linked store is another
 * party's server: its answer reaches the page through this server unchanged, so every field the page shows or
 * reads is checked here, and a view that cannot be read is left out and counted, never drawn half.
 */
import type { View } from './views.js';

export interface ResultFunction {
  name: string;
  /** What the page calls it: its display name, else its name. */
  label: string;
  views: View[];
  /** Declared views left out: not an object with a name and a type. */
  unreadableViews: number;
}

export interface ResultAlgorithm {
  id: number;
  label: string;
  status: string;
  /** `image@sha256:…` when the store gives a digest, else the image alone. */
  pinned: string;
  functions: ResultFunction[];
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** A function's declared views that the page can draw; the others are counted. */
export function readViews(value: unknown): { views: View[]; unreadable: number } {
  const list = Array.isArray(value) ? value : [];
  const views: View[] = [];
  const names = new Set<string>();
  for (const v of list) {
    const name = isObject(v) ? text(v.name) : undefined;
    // Two views of one name would be one section twice: the first is drawn.
    if (!isObject(v) || name === undefined || typeof v.type !== 'string' || names.has(name)) continue;
    names.add(name);
    const description = text(v.description);
    views.push({
      name,
      type: v.type,
      ...(description !== undefined ? { description } : {}),
      ...(isObject(v.schema) ? { schema: v.schema } : {}),
    });
  }
  return { views, unreadable: list.length - views.length };
}

function readFunction(value: unknown): ResultFunction | null {
  if (!isObject(value) || typeof value.name !== 'string') return null;
  const { views, unreadable } = readViews(value.ui_visualizations);
  return {
    name: value.name,
    label: text(value.display_name) ?? value.name,
    views,
    unreadableViews: unreadable,
  };
}

/** The algorithm a store described, or null when what it answered is not one. */
export function readAlgorithm(value: unknown): ResultAlgorithm | null {
  if (!isObject(value)) return null;
  const { id, name, image, digest, status, functions } = value;
  if (typeof id !== 'number' || typeof name !== 'string' || typeof image !== 'string') return null;
  if (!Array.isArray(functions)) return null;
  return {
    id,
    label: text(value.display_name) ?? name,
    status: typeof status === 'string' ? status : '',
    pinned: typeof digest === 'string' && digest ? `${image}@${digest}` : image,
    functions: functions.map(readFunction).filter((f): f is ResultFunction => f !== null),
  };
}
