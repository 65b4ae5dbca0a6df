/**
 * The host side of a run's files: `<data dir>/data/task-<9 digits>/{input,output,token}`. The data directory is
 * what the node's data volume holds (see placement.ts), so the container sees them under /mnt/data.
 */
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

import type { DatabaseConfig } from '../config/node-config.js';
import { taskFolderName } from './naming.js';

export interface RunFilePaths {
  readonly dir: string;
  readonly input: string;
  readonly output: string;
  readonly token: string;
}

export function hostRunFiles(volumeDir: string, resultId: number): RunFilePaths {
  const dir = join(volumeDir, taskFolderName(resultId));
  return { dir, input: join(dir, 'input'), output: join(dir, 'output'), token: join(dir, 'token') };
}

/** Writes the decrypted input, an empty output file and the container token (ASCII, no trailing newline). */
export async function writeRunFiles(
  volumeDir: string,
  resultId: number,
  input: Uint8Array,
  token: string,
): Promise<RunFilePaths> {
  const paths = hostRunFiles(volumeDir, resultId);
  await mkdir(paths.dir, { recursive: true, mode: 0o777 });
  await writeFile(paths.input, input);
  await writeFile(paths.output, Buffer.alloc(0), { mode: 0o666 });
  await writeFile(paths.token, token.trim(), { encoding: 'ascii', mode: 0o644 });
  return paths;
}

/** The size of the output the algorithm wrote; undefined when the file is missing. */
export async function runOutputSize(volumeDir: string, resultId: number): Promise<number | undefined> {
  try {
    return (await stat(hostRunFiles(volumeDir, resultId).output)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The output the algorithm wrote; undefined when the file is missing. */
export async function readRunOutput(volumeDir: string, resultId: number): Promise<Buffer | undefined> {
  try {
    return await readFile(hostRunFiles(volumeDir, resultId).output);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Removes a run's folder (input, output and token stay only while the run is unreported). */
export async function removeRunFiles(volumeDir: string, resultId: number): Promise<void> {
  await rm(hostRunFiles(volumeDir, resultId).dir, { recursive: true, force: true });
}

/** Copies every file database into the volume directory (basename kept), when it is missing or changed. */
export async function copyFileDatabases(
  volumeDir: string,
  databases: readonly DatabaseConfig[],
): Promise<string[]> {
  const copied: string[] = [];
  await mkdir(volumeDir, { recursive: true });
  for (const db of databases) {
    if (!db.isFile) continue;
    const target = join(volumeDir, basename(db.uri));
    const [src, dst] = await Promise.all([stat(db.uri), stat(target).catch(() => undefined)]);
    if (dst && dst.size === src.size && dst.mtimeMs >= src.mtimeMs) continue;
    await copyFile(db.uri, target);
    copied.push(target);
  }
  return copied;
}
