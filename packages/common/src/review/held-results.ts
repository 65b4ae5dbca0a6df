/**
 * Results a node holds for its data officer (docs/output-control.md#held-results): one folder per result in the
 * node's review folder, `<result id>/held.json` (what was held and why), `<result id>/output` (the plain output,
 * after the checks) and, once decided, `<result id>/decision.json`. The node writes the first two and acts on the
 * third; `vnode review` reads them and writes the decision. Every file is written whole and fsynced before it is
 * named, so a held result survives a crash of either, and a decision is never half there.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export interface HeldResult {
  readonly version: 1;
  readonly result_id: number;
  readonly task_id: number;
  readonly run_id: number;
  readonly image: string;
  /** The function run (the input's `method`), when the input said. */
  readonly function: string | null;
  readonly initiating_organization_id: number | null;
  readonly initiating_user_id: number | null;
  readonly collaboration_id: number;
  readonly held_at: string;
  /** Refused by the node when not decided by then. */
  readonly expires_at: string;
  /** Which hold rules matched, e.g. `users: 7`. */
  readonly held_because: readonly string[];
  /** The disclosure rules the output passed (or was suppressed by) before it was held. */
  readonly checks: readonly string[];
  readonly suppressed: boolean;
  /** The run's log as it will be reported (sealed for the initiator at release in an encrypted collaboration). */
  readonly log: string;
  readonly output_bytes: number;
}

export type ReviewVerdict = 'release' | 'refuse';

export interface ReviewDecision {
  readonly decision: ReviewVerdict;
  readonly note: string;
  /** Who decided: the data officer's account on the node's host, or `expiry`. */
  readonly by: string;
  readonly at: string;
}

/** A decision's note is at most this long (it reaches the researcher in the run's log). */
export const MAX_REVIEW_NOTE = 2000;

export const HELD_FILE = 'held.json';
export const HELD_OUTPUT_FILE = 'output';
export const DECISION_FILE = 'decision.json';

export interface HeldEntry {
  readonly held: HeldResult;
  readonly decision: ReviewDecision | undefined;
  readonly dir: string;
}

const heldDir = (root: string, resultId: number): string => join(root, String(resultId));

async function writeSynced(file: string, data: string | Uint8Array, flag = 'w'): Promise<void> {
  const handle = await open(file, flag, 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Keeps a held result: written into a temporary folder, fsynced, then renamed into place. A result held already is
 * kept as it is (with any decision on it): holding it again after a restart changes nothing.
 */
export async function writeHeldResult(root: string, held: HeldResult, output: Uint8Array): Promise<void> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  const final = heldDir(root, held.result_id);
  const tmp = `${final}.${randomBytes(4).toString('hex')}.tmp`;
  await mkdir(tmp, { mode: 0o700 });
  try {
    await writeSynced(join(tmp, HELD_OUTPUT_FILE), output);
    await writeSynced(join(tmp, HELD_FILE), `${JSON.stringify(held, null, 2)}\n`);
    await syncDir(tmp);
    await rename(tmp, final);
    await syncDir(root);
  } catch (error) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    // rename() onto a folder that is not empty fails: that result was held before.
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'ENOTEMPTY' || code === 'EEXIST') && (await readHeldResult(root, held.result_id))) return;
    throw error;
  }
}

const readJson = async <T>(file: string): Promise<T | undefined> => {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
};

/** The held result of `resultId`, or undefined when none is held. */
export async function readHeldResult(root: string, resultId: number): Promise<HeldEntry | undefined> {
  const dir = heldDir(root, resultId);
  const held = await readJson<HeldResult>(join(dir, HELD_FILE));
  if (!held) return undefined;
  return { held, decision: await readJson<ReviewDecision>(join(dir, DECISION_FILE)), dir };
}

/** Every held result, oldest result first (leftover temporary folders are skipped). */
export async function listHeldResults(root: string): Promise<HeldEntry[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const ids = names.filter((n) => /^[1-9][0-9]{0,15}$/.test(n)).map(Number);
  const entries = await Promise.all(ids.sort((a, b) => a - b).map((id) => readHeldResult(root, id)));
  return entries.filter((e): e is HeldEntry => e !== undefined);
}

/** The plain output of a held result. */
export const readHeldOutput = (root: string, resultId: number): Promise<Buffer> =>
  readFile(join(heldDir(root, resultId), HELD_OUTPUT_FILE));

/**
 * Records the decision on a held result. Never replaces one: false when the result was decided already (by another
 * officer, or by its expiry). Throws when no such result is held.
 */
export async function writeReviewDecision(
  root: string,
  resultId: number,
  decision: ReviewDecision,
): Promise<boolean> {
  const dir = heldDir(root, resultId);
  const tmp = join(dir, `${DECISION_FILE}.${randomBytes(4).toString('hex')}.tmp`);
  await writeSynced(tmp, `${JSON.stringify(decision, null, 2)}\n`, 'wx');
  try {
    // A hard link fails when the name exists: the first decision stays.
    await link(tmp, join(dir, DECISION_FILE));
    await syncDir(dir);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** Forgets a held result once its report is kept for delivery. */
export async function removeHeldResult(root: string, resultId: number): Promise<void> {
  await rm(heldDir(root, resultId), { recursive: true, force: true });
  await syncDir(root).catch(() => undefined);
}
