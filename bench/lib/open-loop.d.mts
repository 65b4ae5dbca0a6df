// Types of open-loop.mjs, for the TypeScript tests beside it (open-loop.test.ts).
import type { Agent } from 'node:http';

export function rateOption(argv?: string[]): number | 'auto' | undefined;
export const LATE_MS: number;
export function epochNow(): number;
export interface ScheduleFigures {
  scheduled: number;
  sent: number;
  late: number;
  lateP99: number;
  lateMax: number;
}
export function runSchedule(options: {
  rate: number;
  startAt: number;
  seconds: number;
  offset?: number;
  every?: number;
  send: (i: number, at: number) => void;
}): Promise<ScheduleFigures>;
export function httpText(
  url: string,
  init?: {
    agent?: Agent;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    signal?: AbortSignal;
  },
): Promise<{ status: number; text: string }>;
export function percentile(sorted: number[], p: number): number;
export interface LatencyRow {
  route: string;
  'req/s': number;
  'p50 ms': number;
  'p99 ms': number;
  failures: number;
}
export interface LatencyReport {
  latencies: Record<string, number[]>;
  failures: Record<string, number>;
  unanswered: number;
  messages: string[];
}
export class Latencies {
  unanswered: number;
  messages: string[];
  record(route: string, ms: number): void;
  fail(route: string, error: unknown, options?: { unanswered?: boolean }): void;
  /** How many answers were recorded, over all routes. */
  count(): number;
  toJSON(): LatencyReport;
  merge(report: LatencyReport): this;
  rows(
    seconds: number,
    groups?: Record<string, (route: string) => boolean>,
  ): { rows: LatencyRow[]; groups: LatencyRow[]; all: LatencyRow; rps: number };
}
export function generatorHealth(options?: { resolution?: number }): {
  start(): void;
  stop(): { lagP50: number; lagP99: number; lagMax: number; cpuPct: number };
};
export function startWorkers(
  script: string,
  count: number,
): Promise<{
  count: number;
  all(cmd: string, argsOf?: (i: number) => object): Promise<Record<string, unknown>[]>;
  kill(): void;
}>;
