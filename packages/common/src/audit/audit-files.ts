/**
 * Where a chain's entries are: `<chain>.jsonl` is written to; a full one is renamed `<chain>.<first seq, 12
 * digits>.jsonl` and the chain goes on in a new `<chain>.jsonl` (rotation: docs/audit.md#the-format).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

const CHAIN_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const FILE_NAME = /^([a-z0-9][a-z0-9-]{0,63})(?:\.(\d{12}))?\.jsonl$/;

export function checkChainName(chain: string): void {
  if (!CHAIN_NAME.test(chain))
    throw new TypeError(`an audit chain name is lower-case letters, digits and '-' (got '${chain}')`);
}

export const currentFileName = (chain: string): string => `${chain}.jsonl`;
export const rotatedFileName = (chain: string, firstSeq: number): string =>
  `${chain}.${String(firstSeq).padStart(12, '0')}.jsonl`;
export const lockFileName = (chain: string): string => `${chain}.lock`;

/** The chain a file name belongs to and, for a rotated file, the seq of its first entry. */
export function parseFileName(name: string): { chain: string; firstSeq?: number } | undefined {
  const m = FILE_NAME.exec(name);
  if (!m?.[1]) return undefined;
  return m[2] === undefined ? { chain: m[1] } : { chain: m[1], firstSeq: Number(m[2]) };
}

/** The files of every chain in `dir`, each chain's in order (rotated by first seq, then the current one). */
export async function chainFiles(dir: string): Promise<Map<string, string[]>> {
  const chains = new Map<string, { name: string; order: number }[]>();
  for (const name of await readdir(dir)) {
    const parsed = parseFileName(name);
    if (!parsed) continue;
    const list = chains.get(parsed.chain) ?? [];
    list.push({ name, order: parsed.firstSeq ?? Number.MAX_SAFE_INTEGER });
    chains.set(parsed.chain, list);
  }
  return new Map(
    [...chains.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([chain, list]) => [chain, list.sort((a, b) => a.order - b.order).map((f) => join(dir, f.name))]),
  );
}
