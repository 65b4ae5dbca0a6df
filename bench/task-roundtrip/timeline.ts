/**
 * The master's timeline for bench/task-roundtrip: what the two nodes log (pino lines kept in memory, not printed)
 * turned into the moments of one master's life, in milliseconds after the node took the master's run on.
 */
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

interface Line {
  time: number;
  node: number;
  event: string;
  task_id?: number;
  method?: string;
  path?: string;
  duration_ms?: number;
  steps_ms?: Record<string, number>;
}

/** The steps of one master, in the order they happen. */
export const STEPS = [
  ['posted', 'POST /task sent by the researcher'],
  ['container_started', 'master container started'],
  ['first_request', "master's first proxy request"],
  ['subtask_posted', 'sub-task created (proxy has the answer)'],
  ['sub_taken', 'sub-runs taken on by their nodes (last)'],
  ['sub_started', 'sub-run containers started (last)'],
  ['sub_exited', 'sub-run containers exited (last)'],
  ['sub_reported', 'sub-runs reported (last)'],
  ['wait_answered', "master's long-poll answered"],
  ['exited', 'master container exited'],
  ['reported', 'master reported'],
  ['seen', 'result seen by the researcher'],
] as const;
export type Step = (typeof STEPS)[number][0];

export class TimelineRecorder {
  readonly #lines: Line[] = [];
  readonly #masters: { taskId: number; postedAt: number; seenAt: number }[] = [];

  /** A logger for node `index` whose lines are kept here (debug: the proxy's requests and long-poll answers). */
  logger(index: number): Logger {
    const keep = new Set(['proxy.request', 'proxy.subtask', 'proxy.wait_answered', 'run.finished']);
    const stream = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        for (const text of chunk.toString('utf8').split('\n')) {
          if (!text) continue;
          const line = JSON.parse(text) as Line;
          if (keep.has(line.event)) this.#lines.push({ ...line, node: index });
        }
        done();
      },
    });
    return pino({ level: 'debug' }, stream);
  }

  /** Master task `taskId` was posted at `postedAt` and its result seen at `seenAt` (epoch ms). */
  record(taskId: number, postedAt: number, seenAt: number): void {
    this.#masters.push({ taskId, postedAt, seenAt });
  }

  /** The timeline of one master (its lines may be logged after the researcher saw the result). */
  #timeline(taskId: number, postedAt: number, seenAt: number): Partial<Record<Step, number>> {
    const finished = this.#lines.filter((l) => l.event === 'run.finished' && l.duration_ms !== undefined);
    const master = finished.find((l) => l.task_id === taskId);
    if (!master?.steps_ms) return {};
    const zero = master.time - master.duration_ms!;
    const inWindow = (l: Line): boolean => l.time >= zero && l.time <= master.time;
    const at = (t: number | undefined): number | undefined => (t === undefined ? undefined : t - zero);
    const subs = finished.filter((l) => l.task_id !== taskId && inWindow(l));
    const last = (f: (l: Line) => number | undefined): number | undefined => {
      const xs = subs.map(f).filter((x): x is number => x !== undefined);
      return xs.length === subs.length && xs.length > 0 ? Math.max(...xs) : undefined;
    };
    const subStep = (step: string) => (l: Line) =>
      l.steps_ms?.[step] === undefined ? undefined : l.time - l.duration_ms! + l.steps_ms[step]! - zero;
    const ofMaster = this.#lines.filter((l) => l.node === 0 && inWindow(l));
    return {
      posted: at(postedAt),
      container_started: master.steps_ms.container_started,
      first_request: at(ofMaster.find((l) => l.event === 'proxy.request')?.time),
      subtask_posted: at(ofMaster.find((l) => l.event === 'proxy.subtask')?.time),
      sub_taken: last((l) => l.time - l.duration_ms! - zero),
      sub_started: last(subStep('container_started')),
      sub_exited: last(subStep('container_exited')),
      sub_reported: last(subStep('reported')),
      wait_answered: at(ofMaster.find((l) => l.event === 'proxy.wait_answered')?.time),
      exited: master.steps_ms.container_exited,
      reported: master.steps_ms.reported,
      seen: at(seenAt),
    };
  }

  /** The step marks (`steps_ms` of run.finished) of every run node `index` finished, in order. */
  stepsOf(index: number): Record<string, number>[] {
    return this.#lines
      .filter((l) => l.node === index && l.event === 'run.finished' && l.steps_ms !== undefined)
      .map((l) => l.steps_ms!);
  }

  /** The median of each step over the recorded masters, one line per step. */
  summary(median: (xs: number[]) => number, skip = 0): string[] {
    const timelines = this.#masters.slice(skip).map((m) => this.#timeline(m.taskId, m.postedAt, m.seenAt));
    return STEPS.map(([step, label]) => {
      const xs = timelines.map((t) => t[step]).filter((x): x is number => x !== undefined);
      const value = xs.length > 0 ? `${median(xs).toFixed(0).padStart(6)} ms` : '     – ';
      return `    ${value}  ${label}`;
    });
  }
}

/**
 * One line per step mark: its median (ms after the node took the run on) on each side, and the time each side spent
 * since the previous mark. Tells where the runtimes differ.
 */
export function compareSteps(
  median: (xs: number[]) => number,
  sides: readonly [string, Record<string, number>[]][],
): string[] {
  const order = [
    'initializing',
    'token_image_volume',
    'files',
    'container_started',
    'container_exited',
    'reported',
  ];
  const medians = sides.map(([, runs]) =>
    order.map((step) => {
      const xs = runs.map((r) => r[step]).filter((x): x is number => x !== undefined);
      return xs.length > 0 ? median(xs) : undefined;
    }),
  );
  const fmt = (x: number | undefined): string => (x === undefined ? '–' : x.toFixed(0)).padStart(6);
  const lines = [
    `    ${'step (ms after take-on; +since previous)'.padEnd(40)}${sides.map(([n]) => n.padStart(18)).join('')}`,
  ];
  order.forEach((step, i) => {
    const cells = medians.map((m) => {
      const prev = i > 0 ? m[i - 1] : 0;
      const d = m[i] !== undefined && prev !== undefined ? m[i]! - prev : undefined;
      return `${fmt(m[i])} (+${fmt(d).trim()})`.padStart(18);
    });
    lines.push(`    ${step.padEnd(40)}${cells.join('')}`);
  });
  return lines;
}
