// The closed-loop measure of bench/api-mixed (run.mjs): workers calling routes, and their latencies per route.

/** Latencies (ms) per route name, and failures. */
export class Recorder {
  latencies = new Map();
  failures = 0;
  async time(route, fn) {
    const t0 = performance.now();
    try {
      await fn();
    } catch (e) {
      this.failures += 1;
      if (this.failures <= 3) console.error(`[api-mixed] ${route}: ${e.message}`);
      return;
    }
    const list = this.latencies.get(route) ?? [];
    list.push(performance.now() - t0);
    this.latencies.set(route, list);
  }
  rows(seconds, bareRps) {
    const pct = (xs, p) => Math.round(xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] * 10) / 10;
    const all = [...this.latencies.values()].flat();
    const rows = [...this.latencies.entries()].map(([route, xs]) => {
      xs.sort((a, b) => a - b);
      return {
        route,
        'req/s': Math.round(xs.length / seconds),
        'p50 ms': pct(xs, 0.5),
        'p99 ms': pct(xs, 0.99),
      };
    });
    all.sort((a, b) => a - b);
    const rps = all.length / seconds;
    rows.push({
      route: 'all',
      'req/s': Math.round(rps),
      'p50 ms': pct(all, 0.5),
      'p99 ms': pct(all, 0.99),
      ...(bareRps ? { 'vs bare': `${Math.round((rps / bareRps) * 100)}%` } : {}),
    });
    return { rows, rps, failures: this.failures };
  }
}

/** `workers` loops calling `step()` until `seconds` have passed. */
export async function loop(workers, seconds, step) {
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (performance.now() < end) await step(w);
    }),
  );
}
