import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestHistogram } from './request-histogram.js';

describe('the request histogram', () => {
  it("writes the same samples as prom-client's own histogram for the same observations", async () => {
    const buckets = [0.01, 0.1, 1];
    const ours = new Registry();
    const theirs = new Registry();
    const mine = new RequestHistogram({ name: 'req_seconds', help: 'h', buckets, registry: ours });
    const reference = new Histogram({
      name: 'req_seconds',
      help: 'h',
      labelNames: ['method', 'route', 'status_code'],
      buckets,
      registers: [theirs],
    });
    const seen: [string, string, number, number][] = [
      ['GET', '/api/task/:id', 200, 0.005],
      ['GET', '/api/task/:id', 200, 0.01],
      ['GET', '/api/task/:id', 200, 0.5],
      ['GET', '/api/task/:id', 404, 3],
      ['POST', '/api/task', 201, 0.05],
    ];
    for (const [method, route, status, seconds] of seen) {
      mine.observe(method, route, status, seconds);
      reference.observe({ method, route, status_code: String(status) }, seconds);
    }
    const lines = (text: string): string[] =>
      text
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .sort();
    expect(lines(await ours.metrics())).toEqual(lines(await theirs.metrics()));
    expect(await ours.metrics()).toContain(
      'req_seconds_bucket{le="0.01",method="GET",route="/api/task/:id",status_code="200"} 2',
    );
  });
});
