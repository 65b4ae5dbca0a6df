import { describe, expect, it } from 'vitest';

import { normaliseOutputPolicy } from '../config/output-policy.js';
import type { RunInfo } from './run-info.js';
import type { RunManagerOptions } from './run-options.js';
import { obtainImage, refusedUndeclared } from './prepare-run.js';
import { DeclarationUnavailable } from '../output/store-declarations.js';

const options = (output: unknown, store?: RunManagerOptions['declarations']): RunManagerOptions =>
  ({
    config: { outputPolicy: normaliseOutputPolicy(output as never, 'node.yaml') },
    ...(store ? { declarations: store } : {}),
  }) as unknown as RunManagerOptions;
const run = { image: 'reg/stats:1', taskId: 4 } as RunInfo;
const input = (method: string): Buffer => Buffer.from(`json.${JSON.stringify({ method })}`);
const declared = {
  image: '^reg/stats',
  function: 'crosstab',
  output: { kind: 'count_table', counts: 'table' },
};

describe('a function without a declared output', () => {
  it('runs when the policy says run (the default), or there is no policy', async () => {
    expect(await refusedUndeclared(options({}), run, input('x'))).toBeUndefined();
    expect(await refusedUndeclared(options(undefined), run, input('x'))).toBeUndefined();
  });

  it('is refused when the policy says refuse, naming the function and the key', async () => {
    const o = options({ undeclared: 'refuse', declarations: [declared] });
    expect(await refusedUndeclared(o, run, input('crosstab'))).toBeUndefined();
    expect(await refusedUndeclared(o, run, input('means'))).toBe(
      "the function 'means' of reg/stats:1 declares no output, and this node's output policy runs only functions that do (policies.output.undeclared: refuse)",
    );
    expect(await refusedUndeclared(o, run, Buffer.from('raw'))).toMatch(/^the function \(none named\) of/);
  });

  it('runs when the store declares it, asked with the image, the function and the task', async () => {
    const asked: unknown[] = [];
    const o = options({ undeclared: 'refuse' }, (q) => {
      asked.push(q);
      return Promise.resolve({ kind: 'count_table', counts: 'table' });
    });
    expect(await refusedUndeclared(o, run, input('means'))).toBeUndefined();
    expect(asked).toEqual([{ image: 'reg/stats:1', fn: 'means', taskId: 4 }]);
  });

  it('does not start when the stores that would say what it declares cannot be reached', async () => {
    const down = () =>
      Promise.reject(new DeclarationUnavailable('no algorithm store this node trusts could be asked'));
    expect(await refusedUndeclared(options({}, down), run, input('means'))).toBe(
      "this node's output policy checks declared outputs, and no algorithm store this node trusts could be asked; it does not run the function 'means' without knowing what its output holds",
    );
    // The node's own declaration comes first: no store is needed for it.
    const o = options({ declarations: [declared] }, down);
    expect(await refusedUndeclared(o, run, input('crosstab'))).toBeUndefined();
  });
});

describe("a run's image", () => {
  const runtime = (local: boolean) => {
    const calls: string[] = [];
    return {
      calls,
      pullIfNewer: (ref: string) => {
        calls.push(`pull ${ref}`);
        return Promise.resolve({ action: 'local-fallback' as const, warning: 'no answer within 5000 ms' });
      },
      inspectImage: (ref: string) => {
        calls.push(`inspect ${ref}`);
        return Promise.resolve(
          local
            ? {
                id: 'sha256:abc',
                repoTags: [ref],
                repoDigests: [],
                created: '',
                labels: {},
                exposedPorts: [],
              }
            : undefined,
        );
      },
    };
  };

  it('is pulled when newer on a node with registries', async () => {
    const r = runtime(true);
    expect((await obtainImage(r, 'reg/stats:1', false)).action).toBe('local-fallback');
    expect(r.calls).toEqual(['pull reg/stats:1']);
  });

  it('is only looked up locally on an air-gapped node: no registry is asked, no warning logged', async () => {
    const r = runtime(true);
    expect(await obtainImage(r, 'reg/stats:1', true)).toEqual({
      action: 'up-to-date',
      imageId: 'sha256:abc',
    });
    expect(r.calls).toEqual(['inspect reg/stats:1']);
  });

  it('is missing on an air-gapped node that lacks it, saying how to bring it', async () => {
    const r = runtime(false);
    const got = await obtainImage(r, 'reg/stats:1', true);
    expect(got.action).toBe('missing');
    expect(got.warning).toMatch(/air-gapped \(air_gapped: true\).*docker load/);
    expect(r.calls).toEqual(['inspect reg/stats:1']);
  });
});
