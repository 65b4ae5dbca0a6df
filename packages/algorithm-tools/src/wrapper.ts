/**
 * The algorithm wrapper: reads the input file, calls the requested method with the data source loaded, writes
 * the output file. `RPC_<method>(data, ...args[, kwargs])` for regular runs, `<method>(client, data, ...args[, kwargs])`
 * for master runs (`master: true`). Errors end the process with exit code 1 and a readable message on stderr.
 */
import { readFileSync, writeFileSync } from 'node:fs';

import { AlgorithmClient } from './algorithm-client.js';
import { loadData } from './data.js';
import { decodeJsonPayload, encodeJsonPayload, type AlgorithmInput } from './payload.js';

export type AlgorithmModule = Readonly<Record<string, unknown>>;

export interface RunOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Load the data source before calling (default true). */
  readonly loadData?: boolean;
}

/** Runs one algorithm call as the container's main program. Returns the exit code (0 or 1). */
export async function runAlgorithm(module: AlgorithmModule, options: RunOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  try {
    const inputFile = env.INPUT_FILE;
    const outputFile = env.OUTPUT_FILE;
    if (!inputFile || !outputFile)
      throw new Error('INPUT_FILE and OUTPUT_FILE must be set (the node sets them)');
    const input = decodeJsonPayload<AlgorithmInput>(readFileSync(inputFile));
    if (typeof input.method !== 'string') throw new Error("the input has no 'method'");
    const name = input.master ? input.method : `RPC_${input.method}`;
    const fn = module[name];
    if (typeof fn !== 'function') throw new Error(`the algorithm has no function '${name}'`);
    const data = options.loadData === false ? undefined : loadData(env);
    const args: unknown[] = [...(input.args ?? [])];
    if (input.kwargs && Object.keys(input.kwargs).length > 0) args.push(input.kwargs);
    process.stdout.write(`federa algorithm: calling ${name}\n`);
    const result: unknown = input.master
      ? await (fn as (...a: unknown[]) => unknown)(AlgorithmClient.fromEnv(env), data, ...args)
      : await (fn as (...a: unknown[]) => unknown)(data, ...args);
    writeFileSync(outputFile, encodeJsonPayload(result));
    process.stdout.write(`federa algorithm: ${name} done\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`federa algorithm failed: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}
