/** The node's verdict on its start, from the log lines the node writes (docs/cli.md). */
import { describe, expect, it } from 'vitest';
import { nodeVerdict, unreachableAdvice } from './verdict.js';

const line = (o: Record<string, unknown>): string => JSON.stringify({ level: 30, node: 'a', ...o });

describe('nodeVerdict', () => {
  it('reads logged in, wrong key, unreachable and encryption mismatch', () => {
    expect(nodeVerdict([])).toEqual({ kind: 'starting' });
    expect(
      nodeVerdict([
        line({ event: 'login.retry', url: 'http://localhost:5000/api', err: 'ECONNREFUSED', attempt: 2 }),
      ]),
    ).toEqual({ kind: 'unreachable', error: 'ECONNREFUSED', url: 'http://localhost:5000/api', attempts: 3 });
    expect(nodeVerdict([line({ event: 'login.retry', err: 'x' }), line({ event: 'login' })])).toEqual({
      kind: 'logged-in',
    });
    expect(nodeVerdict([line({ event: 'login' }), line({ event: 'node.ready' })])).toEqual({ kind: 'ready' });
    expect(
      nodeVerdict([line({ event: 'node.start_failed', err: 'wrong API key: the server at h refused it' })])
        .kind,
    ).toBe('wrong-key');
    expect(
      nodeVerdict([
        line({
          event: 'node.start_failed',
          err: "the collaboration 'c' (id 1) is encrypted, but f sets encryption.enabled: false",
        }),
      ]).kind,
    ).toBe('encryption');
    expect(nodeVerdict(['not json', '{broken'])).toEqual({ kind: 'starting' });
  });

  it('tells that localhost in a container is the container', () => {
    expect(unreachableAdvice('http://localhost')).toMatch(/host\.docker\.internal/);
    expect(unreachableAdvice('http://127.0.0.1')).toMatch(/container itself/);
    expect(unreachableAdvice('https://federa.example.org')).toMatch(/check that the server runs/);
  });
});
