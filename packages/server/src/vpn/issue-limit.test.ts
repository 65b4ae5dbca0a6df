import { describe, expect, it } from 'vitest';
import { AT_ONCE, IssueLimit, IssueRefused, PER_NODE_PER_WINDOW, WINDOW_MS } from './issue-limit.js';

/** A promise and the function that settles it. */
function gate(): { promise: Promise<string>; open: () => void } {
  let open = () => {};
  const promise = new Promise<string>((resolve) => (open = () => resolve('made')));
  return { promise, open };
}

describe('the limits on VPN certificates', () => {
  it(`refuses a node's request beyond ${PER_NODE_PER_WINDOW} per window, naming when to retry`, async () => {
    let now = 1_000_000;
    const limit = new IssueLimit(() => now);
    for (let i = 0; i < PER_NODE_PER_WINDOW; i++) {
      expect(await limit.run(7, async () => 'made')).toBe('made');
      now += 1000;
    }
    const refused = await limit.run(7, async () => 'made').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(IssueRefused);
    expect((refused as IssueRefused).message).toContain(`${PER_NODE_PER_WINDOW} VPN certificates`);
    expect((refused as IssueRefused).retryAfterSeconds).toBe(WINDOW_MS / 1000 - PER_NODE_PER_WINDOW);
    // Another node is not held back by this one.
    expect(await limit.run(8, async () => 'made')).toBe('made');
    now += WINDOW_MS;
    expect(await limit.run(7, async () => 'made')).toBe('made');
  });

  it(`makes at most ${AT_ONCE} keys at once across nodes; the others wait their turn`, async () => {
    const limit = new IssueLimit();
    const gates = Array.from({ length: AT_ONCE + 2 }, () => gate());
    let started = 0;
    const runs = gates.map((g, i) =>
      limit.run(100 + i, () => {
        started++;
        return g.promise;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(AT_ONCE);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual(gates.map(() => 'made'));
    expect(started).toBe(AT_ONCE + 2);
  });
});
