/**
 * Everything a run needs before its container can start (docs/reliability.md): the task's
 * input decrypted, the node's policies checked, a container token, the image pulled when newer, the run's
 * temporary volume, and the run's files (input, empty output, token) in the data volume. A run that cannot go on
 * ends here with the outcome to report.
 */
import type { Logger } from 'pino';

import { declarationFor, functionOfInput } from '../output/declaration-source.js';
import { DeclarationUnavailable } from '../output/store-declarations.js';
import { persist } from '../server-client/persist.js';
import { type WireResultWithTask } from '../server-client/wire.js';
import type { ContainerRuntime, PullResult } from '../runtime/container-runtime.js';
import { requestedDatabases, type ContainerTokenAnswer, type ContainerTokenRequest } from '@federa/common';

import { fallbackNote, missingDatabases, resolveDatabases } from './environment.js';
import { tmpVolumeName } from './naming.js';
import { checkPolicies } from './policy.js';
import { checkStorePolicies, httpStoreLookup } from './store-policy.js';
import { writeRunFiles } from './run-files.js';
import { mark, nodeNote, type RunInfo } from './run-info.js';
import type { RunManagerOptions } from './run-options.js';
import type { RunOutcome } from './run-reporter.js';
import { RunStatus, type RunStatusValue } from './run-status.js';

export type Preparation =
  | { readonly ready: true; readonly tmpVolume: string }
  | { readonly ready: false; readonly outcome: RunOutcome };

/** The run ends before it started, with `reason` in its log. */
const stop = (status: RunStatusValue, reason: string, note = reason): Preparation => ({
  ready: false,
  outcome: { status, output: Buffer.alloc(0), log: nodeNote(note), reason },
});

/**
 * Why the node's output policy keeps the run from starting (docs/output-control.md), undefined when it may start:
 * its function declares no output and the policy says `undeclared: refuse`; or the algorithm stores that would say
 * what it declares cannot be reached, and the node does not run what it could not check.
 */
export async function refusedUndeclared(
  o: RunManagerOptions,
  run: RunInfo,
  input: Buffer,
): Promise<string | undefined> {
  const policy = o.config.outputPolicy;
  if (!policy) return undefined;
  const fn = functionOfInput(input);
  const named = fn === undefined ? '(none named)' : `'${fn}'`;
  let declared;
  try {
    declared = await declarationFor(policy, { image: run.image, fn, taskId: run.taskId }, o.declarations);
  } catch (error) {
    if (!(error instanceof DeclarationUnavailable)) throw error;
    return `this node's output policy checks declared outputs, and ${error.message}; it does not run the function ${named} without knowing what its output holds`;
  }
  if (declared || policy.undeclared !== 'refuse') return undefined;
  return `the function ${named} of ${run.image} declares no output, and this node's output policy runs only functions that do (policies.output.undeclared: refuse)`;
}

/**
 * The run's image: pulled when newer, or, on an air-gapped node (`air_gapped: true`), only looked up locally. An
 * air-gapped node has no registry to ask, and asking one anyway costs every run a time-out and a warning in its log.
 */
export async function obtainImage(
  runtime: Pick<ContainerRuntime, 'pullIfNewer' | 'inspectImage'>,
  image: string,
  airGapped: boolean,
): Promise<PullResult> {
  if (!airGapped) return runtime.pullIfNewer(image);
  const local = await runtime.inspectImage(image);
  return local
    ? { action: 'up-to-date', imageId: local.id }
    : {
        action: 'missing',
        warning:
          'this node is air-gapped (air_gapped: true) and never pulls; load the image on it (docker load)',
      };
}

/** Prepares `run`; throws only for failures of the node itself (the caller reports them as such). */
export async function prepareRun(
  o: RunManagerOptions,
  run: RunInfo,
  item: WireResultWithTask,
  rlog: Logger,
): Promise<Preparation> {
  const { rest, runtime, config } = o;
  let input: Buffer;
  try {
    input = item.input ? o.cryptor.decryptStringToBytes(item.input) : Buffer.alloc(0);
  } catch (error) {
    return stop(RunStatus.failed, `the task input could not be read: ${(error as Error).message}`);
  }

  const again = <T>(what: string, fn: () => Promise<T>): Promise<T> =>
    persist(fn, { what, signal: o.signal, log: rlog });
  // The image's trust (allow-list, algorithm stores) and the function: store-policy.ts. checkPolicies then checks
  // who sent the task; its image allow-list is left to checkStorePolicies, which combines it with the stores.
  const trust = await checkStorePolicies(item.task, input, config, o.storeLookup ?? httpStoreLookup(10_000));
  if (!trust.allowed) {
    rlog.warn({ event: 'run.policy_refused', reason: trust.reason }, 'this node refuses the run');
    return stop(RunStatus.notAllowed, trust.reason, `this node refuses the run: ${trust.reason}`);
  }
  const verdict = await checkPolicies(item.task, { ...config, allowedAlgorithms: undefined }, (name) =>
    again('organization lookup', () => o.organizations.idsFor(name)),
  );
  if (!verdict.allowed)
    return stop(RunStatus.notAllowed, verdict.reason, `this node refuses the run: ${verdict.reason}`);
  // Which data: a label this node has not is served by `default` (seed), said in the run's log; without a
  // `default` either, the run does not start.
  const served = resolveDatabases(requestedDatabases(item.task), config.databases);
  const missing = missingDatabases(served);
  if (missing !== undefined) return stop(RunStatus.failed, missing, `this run cannot start: ${missing}`);
  for (const s of served.filter((x) => x.fellBack)) {
    rlog.warn({ event: 'run.database_fallback', requested: s.requested.label }, fallbackNote(s));
    run.notes?.push(fallbackNote(s));
  }
  const undeclared = await refusedUndeclared(o, run, input);
  if (undeclared !== undefined)
    return stop(RunStatus.notAllowed, undeclared, `this node refuses the run: ${undeclared}`);

  // Token, image and temporary volume do not depend on each other.
  const tmpVolume = tmpVolumeName(o.names, run.runId);
  const [{ container_token: token }, pull] = await Promise.all([
    again('container token', () =>
      rest.post<ContainerTokenAnswer>('/token/container', {
        task_id: run.taskId,
        image: run.image,
      } satisfies ContainerTokenRequest),
    ),
    obtainImage(runtime, run.image, config.airGapped),
    runtime.ensureVolume(tmpVolume, { 'federa.node': o.names.node, 'federa.run_id': String(run.runId) }),
  ]);
  mark(run, 'token_image_volume');
  if (pull.action === 'missing')
    return stop(
      RunStatus.noSuchImage,
      `the image ${run.image} does not exist on this node and could not be pulled${pull.warning ? `: ${pull.warning}` : ''}`,
    );
  if (pull.action === 'local-fallback')
    rlog.warn(
      { event: 'image.local_fallback', image: run.image, warning: pull.warning },
      'registry unreachable: using the local image',
    );
  if (pull.action === 'pulled')
    rlog.info({ event: 'image.pulled', image: run.image }, 'pulled a newer image');

  await writeRunFiles(o.volumeDir, run.resultId, input, token);
  mark(run, 'files');

  return { ready: true, tmpVolume };
}
