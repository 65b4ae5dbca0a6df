/** Docker for tests: what a test builds, finds and removes, through the `docker` command line. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Removes the Docker objects of a node (network, data volume, temporary volumes, containers). */
export function removeNodeObjects(name: string, prefix = 'federa'): void {
  const sh = (args: string[]): string => {
    try {
      return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return '';
    }
  };
  const containers = sh(['ps', '-aq', '--filter', `label=node=${name}`])
    .split('\n')
    .filter(Boolean);
  if (containers.length) sh(['rm', '-f', ...containers]);
  sh(['network', 'rm', `${prefix}-${name}-net`]);
  const volumes = sh(['volume', 'ls', '-q', '--filter', `name=${prefix}-${name}-`])
    .split('\n')
    .filter(Boolean);
  if (volumes.length) sh(['volume', 'rm', '-f', ...volumes]);
}

/** Builds a small image from a Dockerfile text (no registry, no context files). */
export function buildImage(tag: string, dockerfile: string, files: Record<string, string> = {}): void {
  const ctx = mkdtempSync(join(tmpdir(), 'federa-image-'));
  writeFileSync(join(ctx, 'Dockerfile'), dockerfile);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(ctx, name), text);
  try {
    execFileSync('docker', ['build', '-q', '-t', tag, ctx], { stdio: ['ignore', 'ignore', 'pipe'] });
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

/**
 * The host as containers on Docker's default bridge see it: the bridge's gateway (inspect leaves it empty on some
 * engines; it is then the subnet's first address).
 */
export function dockerBridgeGateway(): string {
  const text = execFileSync('docker', ['network', 'inspect', '-f', '{{json .IPAM.Config}}', 'bridge'], {
    encoding: 'utf8',
  });
  const [config] = JSON.parse(text) as { Subnet: string; Gateway?: string }[];
  if (!config) throw new Error('the default bridge has no IPAM configuration');
  return config.Gateway || config.Subnet.replace(/\.0\/\d+$/, '.1');
}

/** Fails (never skips) with a readable message when Docker does not answer. */
export function requireDocker(): void {
  try {
    execFileSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'pipe', timeout: 15_000 });
  } catch (error) {
    throw new Error(
      `These tests need a running Docker engine (start it with scripts/docker-engine.sh): ${(error as Error).message.split('\n')[0]}`,
    );
  }
}

/** Fails with a readable message when a locally built image is missing. */
export function requireImage(ref: string): void {
  try {
    execFileSync('docker', ['image', 'inspect', ref], { stdio: 'pipe' });
  } catch {
    const tag = /^federa\/(server|node):(test-[0-9a-f]{8})$/.exec(ref)?.[2];
    throw new Error(
      tag
        ? `the image ${ref} is missing: build it with scripts/build-infra-images.sh --tag ${tag}`
        : `the image ${ref} is missing: build it with scripts/build-images.sh and scripts/build-algorithms.sh`,
    );
  }
}

export const docker = (...args: string[]): string =>
  execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
export const dockerQuiet = (...args: string[]): void => {
  try {
    execFileSync('docker', args, { stdio: 'ignore' });
  } catch {
    /* already gone */
  }
};
