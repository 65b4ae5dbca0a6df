// Types of cpu-stats.mjs, for the TypeScript test beside it (cpu-stats.test.ts).
export function median(xs: readonly number[]): number;
export function quantile(xs: readonly number[], q: number): number;
export function seededRandom(seed: number): () => number;
export function perRequestUs(cpuNs: readonly number[], requests: readonly number[]): number[];
export interface Ratio {
  ratio: number;
  low: number;
  high: number;
  rounds: number;
}
export function pairedRatio(
  a: readonly number[],
  b: readonly number[],
  options?: { level?: number; resamples?: number; seed?: number; sets?: number },
): Ratio;
export function verdict(ratio: Pick<Ratio, 'low' | 'high'>, ceiling: number): 'PASS' | 'FAIL' | 'UNDECIDED';
export function percentMore(ratio: number): string;
export function roundOrder<T>(names: readonly T[], round: number): T[];
export function meanRatio(a: readonly number[], b: readonly number[]): number;
