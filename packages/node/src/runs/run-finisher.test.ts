import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ContainerRuntime, ContainerState } from '../runtime/index.js';
import { HELPER_LABEL } from './network-helpers.js';
import { RunFinisher } from './run-finisher.js';
import type { RunManagerOptions } from './run-options.js';
import type { RunReporter } from './run-reporter.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'federa-run-finisher-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A runtime holding the containers a node left when it stopped after keeping a report; it counts removals. */
function leftovers(containers: Record<string, Record<string, string>>) {
  const running = new Map(Object.entries(containers));
  const runtime = {
    inspectContainer: async (name: string) => {
      const labels = running.get(name);
      return labels
        ? ({ id: name, name, labels, status: 'exited', running: false } as ContainerState)
        : undefined;
    },
    removeContainerIfExists: async (name: string) => running.delete(name),
  } as unknown as ContainerRuntime;
  return { runtime, running };
}

describe('a kept report sent again after a restart', () => {
  it('removes the run’s container and the network helper it used', async () => {
    const { runtime, running } = leftovers({
      'algo-7': { [HELPER_LABEL]: 'helper-7', result_id: '7' },
      'helper-7': {},
      'helper-spare': {},
    });
    const sent: number[] = [];
    const options = {
      runtime,
      store: { remove: async () => undefined },
      log: pino({ level: 'silent' }),
      volumeDir: dir,
    } as unknown as RunManagerOptions;
    const reporter = {
      deliver: async (id: number) => {
        sent.push(id);
        return true;
      },
    } as unknown as RunReporter;
    await new RunFinisher(options, reporter).redeliver(
      {
        resultId: 7,
        taskId: 3,
        runId: 7,
        image: 'algo',
        containerName: 'algo-7',
        phase: 'reporting',
        since: new Date().toISOString(),
      },
      { status: 'completed', result: '', log: '', finished_at: new Date().toISOString() },
    );
    expect(sent).toEqual([7]);
    expect([...running.keys()]).toEqual(['helper-spare']);
  });
});
