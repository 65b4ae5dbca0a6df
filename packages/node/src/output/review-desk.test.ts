import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { writeHeldResult, writeReviewDecision, type HeldResult } from '@federa/common';

import type { RunFinisher } from '../runs/run-finisher.js';
import type { RunInfo } from '../runs/run-info.js';
import type { RunManagerOptions } from '../runs/run-options.js';
import type { RunOutcome, RunReporter } from '../runs/run-reporter.js';
import { ReviewDesk } from './review-desk.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A desk over a fresh review folder; what it reports is kept in `reported`. */
function desk() {
  const base = mkdtempSync(join(tmpdir(), 'federa-desk-'));
  dirs.push(base);
  const reviewDir = join(base, 'review');
  const reported: { run: RunInfo; outcome: RunOutcome }[] = [];
  const abort = new AbortController();
  const options = {
    config: { reviewDir, largeResultBytes: 16 * 1024 * 1024 },
    identity: { nodeId: 1, organizationId: 2, collaborationId: 3 },
    log: pino({ level: 'silent' }),
    signal: abort.signal,
    emitStatus: () => undefined,
  } as unknown as RunManagerOptions;
  const finisher = {
    finish: (run: RunInfo, _log: unknown, outcome: RunOutcome) => {
      reported.push({ run, outcome });
      return Promise.resolve();
    },
  } as unknown as RunFinisher;
  const reporter = { status: () => Promise.resolve() } as unknown as RunReporter;
  const d = new ReviewDesk(options, finisher, reporter);
  return { d, reviewDir, reported, stop: () => abort.abort() };
}

const held = (id: number, expiresAt: string): HeldResult => ({
  version: 1,
  result_id: id,
  task_id: 10 + id,
  run_id: 20 + id,
  image: 'reg/count:1',
  function: 'crosstab',
  initiating_organization_id: 2,
  initiating_user_id: 7,
  collaboration_id: 3,
  held_at: new Date(Date.now() - 60_000).toISOString(),
  expires_at: expiresAt,
  held_because: ['users: 7'],
  checks: ['min_cell_count'],
  suppressed: false,
  log: 'tabulated\n',
  output_bytes: 14,
});

describe('the review desk', () => {
  it('refuses a hold that expired undecided, with nothing of the run, and forgets it', async () => {
    const { d, reviewDir, reported, stop } = desk();
    await writeHeldResult(
      reviewDir,
      held(5, new Date(Date.now() - 1).toISOString()),
      Buffer.from('json.{"t":[9]}'),
    );
    await writeHeldResult(reviewDir, held(6, '2099-01-01T00:00:00.000Z'), Buffer.from('json.{"t":[9]}'));
    await d.start();
    await d.poll();
    stop();
    expect(reported).toHaveLength(1);
    expect(reported[0]!.run).toMatchObject({ resultId: 5, taskId: 15, runId: 25, initiator: 2 });
    expect(reported[0]!.outcome).toMatchObject({ status: 'release refused', output: Buffer.alloc(0) });
    expect(reported[0]!.outcome.log).toMatch(
      /^\[federa node\] the held result expired unreleased: not released within the time this node holds results \(until .+\)\n$/,
    );
    expect(readdirSync(reviewDir)).toEqual(['6']);
    expect(d.isHeld(5)).toBe(false);
    expect(d.isHeld(6)).toBe(true);
  });

  it('reports a released result completed with its output and log, and the note', async () => {
    const { d, reviewDir, reported, stop } = desk();
    await writeHeldResult(reviewDir, held(8, '2099-01-01T00:00:00.000Z'), Buffer.from('json.{"t":[9]}'));
    await writeReviewDecision(reviewDir, 8, { decision: 'release', note: 'fine', by: 'ana', at: 'now' });
    await d.start();
    await d.poll();
    stop();
    expect(reported.map((r) => r.outcome)).toEqual([
      {
        status: 'completed',
        output: Buffer.from('json.{"t":[9]}'),
        log: "tabulated\n[federa node] released by this node's data officer (ana): fine\n",
      },
    ]);
    expect(readdirSync(reviewDir)).toEqual([]);
  });
});
