import { describe, expect, it } from 'vitest';

import { DeclarationUnavailable, storeDeclarationSource } from './store-declarations.js';

// The node reads a function's declared output from the stores it trusts: the approved algorithm at the run's digest,
// asked once and kept; with no store reachable and nothing known, it refuses to guess.

const DIGEST = `sha256:${'a'.repeat(64)}`;
const IMAGE = `reg.example.org/stats:1@${DIGEST}`;
const listing = (output: unknown, digest = DIGEST) => ({
  data: [
    {
      digest,
      functions: [
        { name: 'crosstab', output },
        { name: 'plain', output: null },
      ],
    },
  ],
});

/** A fetch that answers from `answers` in turn ('down': a refused connection) and records the URLs asked. */
function fakeFetch(answers: (unknown | 'down')[]) {
  const asked: string[] = [];
  const f = (async (url: string) => {
    asked.push(url);
    const a = answers.length > 1 ? answers.shift() : answers[0];
    if (a === 'down') throw new TypeError('fetch failed');
    return new Response(JSON.stringify(a), { status: 200 });
  }) as unknown as typeof fetch;
  return { f, asked };
}

const q = (fn: string | undefined, image = IMAGE) => ({ image, fn, taskId: 1 });

describe('declared outputs from the algorithm stores', () => {
  it("gives the function's declaration of the approved algorithm at the run's digest, asking once", async () => {
    const { f, asked } = fakeFetch([listing({ kind: 'count_table', counts: 'table' })]);
    const source = storeDeclarationSource(['http://store.test/api/'], { fetch: f });
    expect(await source(q('crosstab'))).toEqual({ kind: 'count_table', counts: 'table' });
    expect(await source(q('plain'))).toBeUndefined();
    expect(await source(q('absent'))).toBeUndefined();
    expect(asked).toEqual([
      `http://store.test/api/algorithm?image=${encodeURIComponent(IMAGE)}&per_page=100`,
    ]);
  });

  it('has nothing to say of an unpinned image or another digest', async () => {
    const { f, asked } = fakeFetch([
      listing({ kind: 'count_table', counts: 't' }, `sha256:${'b'.repeat(64)}`),
    ]);
    const source = storeDeclarationSource(['http://store.test/api'], { fetch: f });
    expect(await source(q('crosstab', 'reg.example.org/stats:1'))).toBeUndefined();
    expect(asked).toEqual([]);
    expect(await source(q('crosstab'))).toBeUndefined();
  });

  it('asks the next store when the first has not approved the image', async () => {
    const { f, asked } = fakeFetch([{ data: [] }, listing({ kind: 'count_table', counts: 'n' })]);
    const source = storeDeclarationSource(['http://one.test', 'http://two.test'], { fetch: f });
    expect(await source(q('crosstab'))).toEqual({ kind: 'count_table', counts: 'n' });
    expect(asked.map((u) => new URL(u).host)).toEqual(['one.test', 'two.test']);
  });

  it('refuses to guess when no store can be reached and nothing is known, naming the stores', async () => {
    const { f } = fakeFetch(['down']);
    const source = storeDeclarationSource(['http://127.0.0.1:9/api'], { fetch: f });
    const refused = await source(q('crosstab')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DeclarationUnavailable);
    expect((refused as Error).message).toBe(
      `no algorithm store this node trusts could be asked what ${IMAGE} declares: http://127.0.0.1:9/api (fetch failed)`,
    );
  });

  it('keeps a known answer, and uses it past its time while the store is down', async () => {
    let now = 0;
    const { f, asked } = fakeFetch([listing({ kind: 'count_table', counts: 'table' }), 'down']);
    const source = storeDeclarationSource(['http://store.test'], { fetch: f, now: () => now, keepMs: 1000 });
    expect(await source(q('crosstab'))).toBeDefined();
    now = 999;
    expect(await source(q('crosstab'))).toBeDefined();
    expect(asked).toHaveLength(1);
    now = 5000;
    expect(await source(q('crosstab'))).toEqual({ kind: 'count_table', counts: 'table' });
    expect(asked).toHaveLength(2);
  });

  it('asks again soon after a store had not approved the image', async () => {
    let now = 0;
    const { f, asked } = fakeFetch([{ data: [] }, listing({ kind: 'count_table', counts: 'table' })]);
    const source = storeDeclarationSource(['http://store.test'], { fetch: f, now: () => now });
    expect(await source(q('crosstab'))).toBeUndefined();
    now = 61_000;
    expect(await source(q('crosstab'))).toEqual({ kind: 'count_table', counts: 'table' });
    expect(asked).toHaveLength(2);
  });

  it('takes a declaration it cannot read as one it cannot check', async () => {
    const { f } = fakeFetch([listing({ kind: 'histogram', bins: 'b' })]);
    const source = storeDeclarationSource(['http://store.test'], { fetch: f });
    await expect(source(q('crosstab'))).rejects.toThrow(
      "its declared output of 'crosstab' is not one this node reads ('kind' must be one of",
    );
  });
});
