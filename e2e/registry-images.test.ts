/**
 * End to end, all real: the node's run path takes its images from a real registry on loopback (Debian's
 * docker-registry): it pulls an image it does not have, pulls again only when the registry has a newer one, runs
 * the local image with a warning when the registry cannot be reached, and logs in to a private registry (TLS +
 * htpasswd) with the credentials of its configuration (`docker_registries`).
 * Needs Docker, the images of scripts/build-images.sh and `apt-get install docker-registry`.
 */
import { execFileSync } from 'node:child_process';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import {
  createFederation,
  type E2eServer,
  type Federation,
  LocalRegistry,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const tag = `rg${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
const TEST_LABEL = 'federa.test-run';

let server: E2eServer;
const nodes: StartedNode[] = [];
const registries: LocalRegistry[] = [];

beforeAll(async () => {
  server = await startE2eServer();
}, 60_000);

afterAll(async () => {
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of nodes) removeNodeObjects(n.name);
  for (const r of registries) await r.tearDown();
}, 60_000);

/** An algorithm image that writes `{"version": N}` as its output and says so in its log. */
const versionCmd = (version: number): string[] => [
  '/bin/sh',
  '-c',
  `echo "algorithm version ${version}"; printf 'json.{"version": ${version}}' > "$OUTPUT_FILE"`,
];

const docker = (...args: string[]): string =>
  execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

interface ResultView {
  status: string;
  result: string | null;
  log: string | null;
  finished_at: string | null;
}

async function runTask(fed: Federation, image: string): Promise<ResultView> {
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'registry',
    image,
    collaboration_id: fed.collaborationId,
    organizations: [{ id: fed.orgs[0]!.id, input: encodeBase64(Buffer.from('json.{"method": "x"}')) }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const results = await until(
    'the run is finished',
    async () => (await server.api<ResultView[]>('GET', `/task/${posted.body.id}/result`)).body,
    (rs) => rs.length === 1 && rs[0]!.finished_at !== null,
    60_000,
    100,
  );
  return results[0]!;
}

const version = (r: ResultView): number =>
  (
    JSON.parse(
      Buffer.from(r.result ?? '', 'base64')
        .toString()
        .replace(/^json\./, ''),
    ) as { version: number }
  ).version;

async function startNode(
  suffix: string,
  extra = '',
): Promise<{ fed: Federation; node: StartedNode; log: string[] }> {
  const fed = await createFederation(server, false, `${tag}${suffix}`, ['age\n1\n', 'age\n2\n']);
  const log: string[] = [];
  const node = await startE2eNode(
    server,
    fed.orgs[0]!,
    `${tag}${suffix}-0`,
    false,
    extra,
    pino({ level: 'info' }, { write: (line: string) => void log.push(line) }),
  );
  nodes.push(node);
  return { fed, node, log };
}

const events = (log: string[], event: string, image: string): number =>
  log.filter((l) => l.includes(`"event":"${event}"`) && l.includes(`"image":"${image}"`)).length;

describe('images from a registry, through the node', () => {
  it('pulls a missing image, pulls a newer push before the next task, and falls back to the local image when the registry is down', async () => {
    const reg = new LocalRegistry(`${tag}-algo`, { labels: { [TEST_LABEL]: tag } });
    registries.push(reg);
    await reg.setUp();
    const ref = `${reg.repo}:latest`;
    const v1 = await reg.makeImage(ref, '1', versionCmd(1));
    await reg.push(ref);
    docker('rmi', ref); // only the registry has it now
    const { fed, log } = await startNode('pub');

    // Not on this machine: pulled, then run.
    const first = await runTask(fed, ref);
    expect(first.status, first.log ?? '').toBe('completed');
    expect(version(first)).toBe(1);
    expect(first.log).toContain('algorithm version 1');
    expect(events(log, 'image.pulled', ref)).toBe(1);

    // Same image in the registry: nothing pulled.
    const again = await runTask(fed, ref);
    expect(version(again)).toBe(1);
    expect(events(log, 'image.pulled', ref)).toBe(1);

    // A newer image is pushed (from elsewhere: the local tag still names version 1): the next task runs it.
    await reg.makeImage(ref, '2', versionCmd(2));
    await reg.push(ref);
    docker('tag', v1, ref);
    const newer = await runTask(fed, ref);
    expect(newer.status, newer.log ?? '').toBe('completed');
    expect(version(newer)).toBe(2);
    expect(events(log, 'image.pulled', ref)).toBe(2);

    // Registry down: the local image (version 2) runs, and the node says it could not check for a newer one.
    await reg.stop();
    const offline = await runTask(fed, ref);
    expect(offline.status, offline.log ?? '').toBe('completed');
    expect(version(offline)).toBe(2);
    const fallback = log.find(
      (l) => l.includes('"event":"image.local_fallback"') && l.includes(`"image":"${ref}"`),
    );
    expect(fallback).toMatch(/"level":40/);
    expect(fallback).toMatch(/could not ask the registry|pulling .* failed/);

    // Down and never pulled: a finished run that says so.
    const absent = await runTask(fed, `${reg.repo}-absent:1`);
    expect(absent.status).toBe('non-existing Docker image');
    expect(absent.log).toMatch(/does not exist on this node and could not be pulled/);
  }, 120_000);

  it('pulls from a private registry (TLS + htpasswd) with the credentials of docker_registries', async () => {
    const auth = { username: 'federa', password: `pw-${tag}` };
    const reg = new LocalRegistry(`${tag}-private`, { auth, labels: { [TEST_LABEL]: tag } });
    registries.push(reg);
    await reg.setUp();
    const ref = `${reg.repo}:1.0`;
    await reg.makeImage(ref, '7', versionCmd(7));
    await reg.push(ref);
    docker('rmi', ref);

    // A node without the credentials cannot get the image.
    const anonymous = await startNode('anon');
    const refused = await runTask(anonymous.fed, ref);
    expect(refused.status).toBe('non-existing Docker image');
    expect(refused.log).toContain(`the image ${ref} does not exist on this node and could not be pulled`);

    // With them in its configuration it logs in at start and pulls.
    const { fed, log } = await startNode(
      'priv',
      `  docker_registries:\n    - {registry: "https://${reg.host}", username: ${auth.username}, password: "${auth.password}"}\n`,
    );
    expect(log.some((l) => l.includes('"event":"registry.login"') && l.includes(reg.host))).toBe(true);
    const pulled = await runTask(fed, ref);
    expect(pulled.status, pulled.log ?? '').toBe('completed');
    expect(version(pulled)).toBe(7);
    expect(events(log, 'image.pulled', ref)).toBe(1);
  }, 120_000);
});
