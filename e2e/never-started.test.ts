/**
 * A run whose container was created but never started when the node stopped (docs/reliability.md): after the restart
 * it is started and completes with the algorithm's own output, once; it is never reported `completed` from the exit
 * code of a container that did not run. The node is stopped deterministically between create and start: its
 * container runtime is wrapped so that `runContainer` only creates the container and never returns.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import { createContainerRuntime, type ContainerRuntime, type ContainerSpec } from '@federa/node';
import {
  createFederation,
  type E2eServer,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '..');
const START_LINE = 'federa/start-line:local';
const tag = `ns${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
const started: StartedNode[] = [];

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  server = await startE2eServer();
}, 120_000);

afterAll(async () => {
  for (const n of started) await n.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
}, 60_000);

/** `docker create` of what runContainer would create and start. */
function createOnly(spec: ContainerSpec): void {
  execFileSync(
    'docker',
    [
      'create',
      '--name',
      spec.name,
      ...(spec.network ? ['--network', spec.network] : []),
      ...Object.entries(spec.env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
      ...spec.mounts.flatMap((m) => ['--mount', `type=${m.type},source=${m.source},target=${m.target}`]),
      ...Object.entries(spec.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
      ...(spec.extraHosts ?? []).flatMap((h) => ['--add-host', h]),
      spec.image,
    ],
    { stdio: 'ignore' },
  );
}

describe('a run created but never started', () => {
  it('is started after the restart and completes once with its own output', async () => {
    const fed = await createFederation(server, false, tag, ['age\n1\n', 'age\n2\n']);
    const org = fed.orgs[0]!;
    let created: (name: string) => void = () => undefined;
    const whenCreated = new Promise<string>((resolve) => (created = resolve));
    const real = createContainerRuntime();
    const stalling = new Proxy(real, {
      get(target, prop) {
        if (prop === 'runContainer')
          return (spec: ContainerSpec) => {
            // Network helpers start as usual; an algorithm container is only created.
            if (spec.labels['vantage6-type'] !== 'algorithm') return target.runContainer(spec);
            createOnly(spec);
            created(spec.name);
            return new Promise(() => undefined); // the node "dies" here
          };
        const value: unknown = Reflect.get(target, prop);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as ContainerRuntime;
    const first = await startE2eNode(server, org, `${tag}-0`, false, '', undefined, undefined, stalling);

    const posted = await server.api<{ id: number }>('POST', '/task', {
      name: 'never started',
      image: START_LINE,
      collaboration_id: fed.collaborationId,
      organizations: [{ id: org.id, input: encodeBase64(Buffer.from('sleep 0')) }],
    });
    expect(posted.status).toBe(201);
    const container = await whenCreated;
    expect(
      execFileSync('docker', ['inspect', '-f', '{{.State.Status}}', container], { encoding: 'utf8' }).trim(),
    ).toBe('created');
    await first.node.stop();

    const lines: string[] = [];
    const second = await startE2eNode(
      server,
      org,
      `${tag}-0`,
      false,
      '',
      pino({ level: 'info' }, { write: (l: string) => void lines.push(l) }),
      first.configFile,
    );
    started.push(second);
    const result = await until(
      'the run finished',
      async () =>
        (
          await server.api<
            { id: number; status: string; result: string | null; finished_at: string | null }[]
          >('GET', `/task/${posted.body.id}/result`)
        ).body[0]!,
      (r) => r.finished_at !== null,
      60_000,
      200,
    );
    const folder = `task-${String(result.id).padStart(9, '0')}`;
    expect(result.status).toBe('completed');
    expect(Buffer.from(result.result ?? '', 'base64').toString()).toBe(`json.{"ran": "${folder}"}`);
    const startLines = readFileSync(join(second.dataDir, 'data', 'start-lines'), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(startLines).toEqual([`start ${folder}`]);
    expect(lines.some((l) => l.includes('"event":"run.never_started"'))).toBe(true);
  }, 120_000);
});
