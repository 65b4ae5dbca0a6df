/**
 * Image choice and "pull only when newer" against a real registry on loopback (Debian's docker-registry), and the
 * fallback to the local image when the registry cannot be reached.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../exit-codes.js';
import {
  docker,
  dockerQuiet,
  freePort,
  requireDocker,
  requireImage,
  tempXdg,
  uniqueName,
} from '@federa/testing';
import { Progress } from '../util/progress.js';
import { cliMajor } from '../version.js';
import { connectDocker, type DockerEngine } from './engine.js';
import { chooseImage, ensureImage } from './images.js';

const dirs = tempXdg();
let registry: ChildProcess | undefined;
let port = 0;
let repo = '';
let engine: DockerEngine;
const built: string[] = [];
const lines: string[] = [];
const progress = new Progress({ write: (s: string) => lines.push(s) });

const startRegistry = async (): Promise<void> => {
  registry = spawn('docker-registry', ['serve', join(dirs.root, 'registry.yml')], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/v2/`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`docker-registry did not answer on 127.0.0.1:${port}`);
};

/** Builds a tiny image with distinct content, tagged `tag`. Returns its id. */
const buildImage = (tag: string, content: string): string => {
  const ctx = join(dirs.root, `ctx-${built.length}`);
  mkdirSync(ctx, { recursive: true });
  writeFileSync(join(ctx, 'Dockerfile'), `FROM federa/helper:local\nRUN echo ${content} > /content\n`);
  execFileSync('docker', ['build', '-q', '--network', 'none', '-t', tag, ctx], { stdio: 'pipe' });
  const id = docker('image', 'inspect', '--format', '{{.Id}}', tag);
  built.push(id);
  return id;
};

beforeAll(async () => {
  requireDocker();
  requireImage('federa/helper:local');
  port = await freePort();
  repo = `127.0.0.1:${port}/${uniqueName('federa-test')}/server:${cliMajor()}`;
  writeFileSync(
    join(dirs.root, 'registry.yml'),
    [
      'version: 0.1',
      'log:',
      '  level: error',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dirs.root, 'registry')}`,
      'http:',
      `  addr: 127.0.0.1:${port}`,
      '',
    ].join('\n'),
  );
  await startRegistry();
  engine = await connectDocker();
}, 60_000);

afterAll(() => {
  registry?.kill();
  dockerQuiet('image', 'rm', '-f', repo);
  for (const id of built) dockerQuiet('image', 'rm', '-f', id);
  dirs.cleanup();
});

describe('chooseImage', () => {
  it('takes --image, else the configuration, else the CLI major version tag', () => {
    expect(chooseImage('server', 'x/y:1.2.3', { image: 'a/b:1' })).toEqual({
      ref: 'x/y:1.2.3',
      source: 'option',
    });
    expect(chooseImage('node', undefined, { image: 'a/b:1', images: { node: 'c/d:2' } })).toEqual({
      ref: 'c/d:2',
      source: 'config',
    });
    expect(chooseImage('node', undefined, { image: 'a/b:1' })).toEqual({ ref: 'a/b:1', source: 'config' });
    expect(chooseImage('server', undefined, {})).toEqual({
      ref: `federa/server:${cliMajor()}`,
      source: 'default',
    });
  });
});

describe('ensureImage against a registry on loopback', () => {
  it('keeps a current image, pulls a newer one, and falls back to the local image without a registry', async () => {
    const v1 = buildImage(repo, `v1-${port}`);
    docker('push', repo);
    expect(await ensureImage(engine, repo, progress)).toBe('up-to-date');

    // The registry gets a newer image; this machine still has v1 under the tag.
    const v2 = buildImage(repo, `v2-${port}`);
    docker('push', repo);
    docker('tag', v1, repo);
    expect(docker('image', 'inspect', '--format', '{{.Id}}', repo)).toBe(v1);
    lines.length = 0;
    expect(await ensureImage(engine, repo, progress)).toBe('pulled');
    expect(docker('image', 'inspect', '--format', '{{.Id}}', repo)).toBe(v2);
    expect(lines.join('')).toMatch(/✓ pulling /);

    // The registry goes away: the local image is used, with a warning.
    registry?.kill();
    await new Promise((r) => setTimeout(r, 300));
    lines.length = 0;
    expect(await ensureImage(engine, repo, progress, { timeoutMs: 5000 })).toBe('local-fallback');
    // Said once, on the step's own line; a warning looks like one: the work goes on, so no red cross.
    const said = lines.join('');
    expect(said).toMatch(
      /! checking the registry for .*: registry not reachable \(.+\); using the local image \(\d+\.\ds\)\n/,
    );
    expect(said.match(/not reachable|could not ask the registry/g)).toHaveLength(1);
    expect(said.match(/using the local image/g)).toHaveLength(1);
    expect(said).not.toMatch(/✗/);
  }, 120_000);

  it('is a docker error when the image is neither local nor in a reachable registry', async () => {
    const missing = `127.0.0.1:${port}/nothing/here:${cliMajor()}`;
    const error = await ensureImage(engine, missing, progress, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).reason).toBe('docker');
    expect((error as CliError).message).toMatch(
      /neither available locally nor from its registry.*build-infra-images/,
    );
  }, 60_000);
});
