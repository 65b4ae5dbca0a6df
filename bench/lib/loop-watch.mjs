// What a benchmark server's own thread did in a measured window, read from inside its process: how late its event
// loop ran (open-loop.mjs `generatorHealth`, the load generators' own measure), how often it stood still for 10 ms
// or more (a 5 ms timer that came late), and its garbage collections by kind; the two timers cost the server about
// 300 wake-ups a second. bench/lib/instance.mjs starts it when FEDERA_BENCH_WATCH names a file: SIGUSR2 starts a
// window, SIGUSR1 ends it and writes the figures to that file as one JSON object. Why: docs/performance.md
// ("What limits each").
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { generatorHealth } from './open-loop.mjs';

const STALL_MS = 10;
const RESOLUTION_MS = 10;
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'young',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'full',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/** Watches this process's event loop between SIGUSR2 and SIGUSR1 and writes what it saw to `file`. */
export function watchLoop(file) {
  const health = generatorHealth({ resolution: RESOLUTION_MS });
  let watching = false;
  let gc = new Map();
  let stalls = [];
  let timer = null;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS[e.detail?.kind] ?? 'other';
      const g = gc.get(kind) ?? { n: 0, ms: 0, max_ms: 0 };
      g.n += 1;
      g.ms += e.duration;
      g.max_ms = Math.max(g.max_ms, e.duration);
      gc.set(kind, g);
    }
  });
  process.on('SIGUSR2', () => {
    health.start();
    watching = true;
    gc = new Map();
    stalls = [];
    observer.observe({ entryTypes: ['gc'] });
    let last = performance.now();
    clearInterval(timer);
    timer = setInterval(() => {
      const now = performance.now();
      if (now - last >= STALL_MS) stalls.push(now - last);
      last = now;
    }, 5);
  });
  process.on('SIGUSR1', () => {
    if (!watching) return;
    watching = false;
    const { lagP50, lagP99, lagMax } = health.stop();
    observer.disconnect();
    clearInterval(timer);
    const round = (x) => Math.round(x * 10) / 10;
    writeFileSync(
      file,
      JSON.stringify({
        loop_delay_ms: { p50: lagP50, p99: lagP99, max: lagMax },
        stalls: {
          at_least_ms: STALL_MS,
          n: stalls.length,
          ms: Math.round(stalls.reduce((a, b) => a + b, 0)),
          longest_ms: stalls
            .sort((a, b) => b - a)
            .slice(0, 5)
            .map(round),
        },
        gc: Object.fromEntries(
          [...gc].map(([k, g]) => [k, { n: g.n, ms: Math.round(g.ms), max_ms: round(g.max_ms) }]),
        ),
      }),
    );
  });
}
