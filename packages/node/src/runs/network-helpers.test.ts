import { afterEach, describe, expect, it, vi } from 'vitest';
import pino from 'pino';
import type { ContainerRuntime } from '../runtime/index.js';
import { NetworkHelpers } from './network-helpers.js';

/** A runtime that only starts and removes helpers: each start takes `startMs` and is counted. */
function fakeRuntime(startMs: number) {
  const started: string[] = [];
  const removed: string[] = [];
  const runtime = {
    imageExists: async () => true,
    listContainers: async () => [],
    removeContainerIfExists: async (name: string) => {
      removed.push(name);
    },
    runContainer: async (spec: { name: string }) => {
      await new Promise((r) => setTimeout(r, startMs));
      started.push(spec.name);
      return spec.name;
    },
  } as unknown as ContainerRuntime;
  return { runtime, started, removed };
}

const names = { prefix: 'federa', node: 'n1' } as never;
const make = (runtime: ContainerRuntime) =>
  new NetworkHelpers({ runtime, names, network: 'net', extraHosts: [], log: pino({ level: 'silent' }) });

afterEach(() => {
  vi.useRealTimers();
});

describe('network helpers started ahead of time', () => {
  it('keeps three spares, so a master and two of its own sub-runs all find one ready', async () => {
    const { runtime, started } = fakeRuntime(5);
    const helpers = make(runtime);
    await helpers.start(new Set());
    await helpers.settled();
    expect(started).toHaveLength(3);
    const taken = [helpers.take(), helpers.take(), helpers.take()];
    expect(taken.every((t) => t !== undefined)).toBe(true);
    expect(new Set(taken).size).toBe(3);
    await helpers.close();
  });

  it('starts replacements a moment later while spares are left, at once when none is left', async () => {
    const { runtime, started } = fakeRuntime(5);
    const helpers = make(runtime);
    await helpers.start(new Set());
    await helpers.settled();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    helpers.take();
    helpers.take();
    // Two spares taken, one left: nothing starts beside the runs' own container starts.
    await vi.advanceTimersByTimeAsync(900);
    expect(started).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(200);
    await vi.advanceTimersByTimeAsync(10);
    expect(started).toHaveLength(5);
    vi.useRealTimers();
    await helpers.settled();
    // The last spare taken: its replacement starts at once.
    helpers.take();
    helpers.take();
    helpers.take();
    await helpers.settled();
    expect(started).toHaveLength(8);
    await helpers.close();
  });

  it('gives a run the helper already on its way rather than starting another', async () => {
    const { runtime, started } = fakeRuntime(50);
    const helpers = make(runtime);
    await helpers.start(new Set());
    // None ready yet, three on their way: the run waits for the first of them.
    const helper = await helpers.acquire();
    expect(helper).toBeDefined();
    expect(started).toContain(helper);
    await helpers.settled();
    expect(started).toHaveLength(4); // three spares and one replacement, no extra start for the run
    await helpers.close();
  });

  it('removes the unused spares when it closes, and starts none after', async () => {
    const { runtime, started, removed } = fakeRuntime(5);
    const helpers = make(runtime);
    await helpers.start(new Set());
    await helpers.settled();
    helpers.take();
    await helpers.close();
    expect(removed.sort()).toEqual(started.slice(1).sort());
    await new Promise((r) => setTimeout(r, 1_100));
    expect(started).toHaveLength(3);
  });
});
