/**
 * Version numbers of Federa (docs/cli.md#images-and-versions): major.minor.patch with an optional `postN` suffix
 * (`1.2.3`, `1.2.3.post1`, also written `1.2.3-post1` or `1.2.3post1`).
 */
import { readFileSync } from 'node:fs';

export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** The N of `postN`; 0 when there is no suffix. */
  readonly post: number;
}

const PATTERN = /^v?(\d+)\.(\d+)\.(\d+)(?:[.-]?post(\d+))?$/;

/** Parses a version; undefined when `text` is not one (e.g. a tag like `latest` or `local`). */
export function parseVersion(text: string): Version | undefined {
  const m = PATTERN.exec(text.trim());
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    post: m[4] === undefined ? 0 : Number(m[4]),
  };
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || a.post - b.post;
}

export const sameMajor = (a: Version, b: Version): boolean => a.major === b.major;

export const formatVersion = (v: Version): string =>
  `${v.major}.${v.minor}.${v.patch}${v.post > 0 ? `.post${v.post}` : ''}`;

/** The CLI package's own version. */
export const CLI_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The CLI's major version: the tag of the infrastructure images it starts by default. */
export function cliMajor(): number {
  const v = parseVersion(CLI_VERSION);
  if (!v) throw new Error(`the CLI's own version '${CLI_VERSION}' is not major.minor.patch`);
  return v.major;
}
