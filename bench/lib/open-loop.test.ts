import { createServer, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { epochNow, httpText, Latencies, rateOption, runSchedule } from './open-loop.mjs';

describe('the open-loop schedule', () => {
  it('sends every slot of the window once, split over processes by offset and step', async () => {
    const startAt = epochNow() + 20;
    const seen: number[] = [];
    const figures = await Promise.all(
      [0, 1].map((offset) =>
        runSchedule({ rate: 200, startAt, seconds: 0.25, offset, every: 2, send: (i) => seen.push(i) }),
      ),
    );
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(50).keys()]);
    expect(figures.map((f) => f.scheduled)).toEqual([25, 25]);
    expect(figures.map((f) => f.sent)).toEqual([25, 25]);
  });

  it('sends every slot of a generator held up, and counts how late', async () => {
    const startAt = epochNow() + 10;
    let first = true;
    const figures = await runSchedule({
      rate: 1000,
      startAt,
      seconds: 0.2,
      send: () => {
        if (!first) return;
        first = false;
        const until = epochNow() + 100; // the generator's event loop blocked for 100 ms
        while (epochNow() < until);
      },
    });
    expect(figures.scheduled).toBe(200);
    expect(figures.late).toBeGreaterThan(50);
    expect(figures.lateMax).toBeGreaterThanOrEqual(90);
    expect(figures.sent).toBe(200);
  });

  it('takes --rate as "auto" or a positive number and names the option otherwise', () => {
    expect(rateOption(['node', 'run.mjs'])).toBeUndefined();
    expect(rateOption(['node', 'run.mjs', '--rate', 'auto'])).toBe('auto');
    expect(rateOption(['node', 'run.mjs', '--rate', '300'])).toBe(300);
    for (const bad of [['--rate', 'fast'], ['--rate', '0'], ['--rate', '-5'], ['--rate']])
      expect(() => rateOption(['node', 'run.mjs', ...bad])).toThrow(/--rate takes "auto" or a number/);
  });
});

describe('latency from the time a request was due', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('keeps sending on schedule while the server stalls, and counts the stall in every request due during it', async () => {
    // The server holds every answer until 300 ms after the first request arrives, then answers at once.
    let openAt = 0;
    server = createServer((req, res) => {
      openAt ||= epochNow() + 300;
      setTimeout(() => res.end('{}'), Math.max(0, openAt - epochNow()));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const rec = new Latencies();
    const done: Promise<void>[] = [];
    const startAt = epochNow() + 20;
    const figures = await runSchedule({
      rate: 50,
      startAt,
      seconds: 0.6,
      send: (i, at) =>
        done.push(
          httpText(url, { agent }).then(() => rec.record(i * 20 < 250 ? 'during' : 'after', epochNow() - at)),
        ),
    });
    await Promise.all(done);
    agent.destroy();
    expect(figures.sent).toBe(30);
    const { rows } = rec.rows(0.6);
    const during = rows.find((r) => r.route === 'during')!;
    const after = rows.find((r) => r.route === 'after')!;
    // Requests due at 0..240 ms all waited for the stall: the median one about 150 ms, none close to 0.
    expect(during['p50 ms']).toBeGreaterThan(100);
    expect(Math.min(...rec.toJSON().latencies.during!)).toBeGreaterThan(40);
    // Those due once it was over were answered at once.
    expect(after['p50 ms']).toBeLessThan(40);
  });
});

describe('the latency report', () => {
  it('gives per-route and overall p50/p99 and failures, added up over processes', () => {
    const a = new Latencies();
    const b = new Latencies();
    for (let i = 1; i <= 100; i++) a.record('GET /x', i);
    b.record('GET /y', 1000);
    b.fail('GET /y', new Error('500 boom'));
    b.fail('GET /y', new Error('aborted'), { unanswered: true });
    const merged = new Latencies().merge(a.toJSON()).merge(b.toJSON());
    const { rows, groups, all, rps } = merged.rows(10, { 'only y': (r) => r === 'GET /y' });
    expect(rows.find((r) => r.route === 'GET /x')).toMatchObject({
      'req/s': 10,
      'p50 ms': 51,
      'p99 ms': 100,
    });
    expect(rows.find((r) => r.route === 'GET /y')).toMatchObject({ failures: 2 });
    expect(all).toMatchObject({ route: 'all', 'p50 ms': 51, 'p99 ms': 100, failures: 2 });
    expect(groups).toEqual([{ route: 'only y', 'req/s': 0, 'p50 ms': 1000, 'p99 ms': 1000, failures: 2 }]);
    expect(rows.map((r) => r.route)).toEqual(['GET /x', 'GET /y']);
    expect(rps).toBeCloseTo(10.1);
    expect(merged.count()).toBe(101); // answers only: the two failures are not requests answered
    expect(merged.unanswered).toBe(1);
    expect(merged.messages).toEqual(['GET /y: 500 boom']);
  });
});
