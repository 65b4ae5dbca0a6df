/**
 * The algorithm container of a run (docs/container-environment.md): its image, environment, the data and temporary
 * volumes, the node's private network (or a network helper's namespace) and the labels that find it again after a
 * restart.
 */
import type { ContainerSpec } from '../runtime/index.js';
import type { TaskDatabase } from '@federa/common';
import { buildAlgorithmEnv } from './environment.js';
import { V4_PROXY_PATH } from '../proxy/proxy-options.js';
import { algorithmLabels, CONTAINER_DATA_DIR, CONTAINER_TMP_DIR } from './naming.js';
import { HELPER_LABEL } from './network-helpers.js';
import type { RunInfo } from './run-info.js';
import type { RunManagerOptions } from './run-options.js';

export type SpecOptions = Pick<
  RunManagerOptions,
  'config' | 'names' | 'dataVolume' | 'network' | 'proxyHost' | 'proxyPort' | 'extraHosts'
>;

/** The container on the node's private network. */
export function algorithmContainerSpec(
  o: SpecOptions,
  run: RunInfo,
  requested: readonly TaskDatabase[],
  tmpVolume: string,
): ContainerSpec {
  return {
    name: run.containerName,
    image: run.image,
    env: buildAlgorithmEnv({
      resultId: run.resultId,
      requested,
      databases: o.config.databases,
      proxyHost: o.proxyHost,
      proxyPort: o.proxyPort,
      ...(run.api === 'v4' ? { apiPath: V4_PROXY_PATH } : {}),
      algorithmEnv: o.config.algorithmEnv,
    }),
    mounts: [
      { source: o.dataVolume, target: CONTAINER_DATA_DIR, type: 'volume' },
      { source: tmpVolume, target: CONTAINER_TMP_DIR, type: 'volume' },
    ],
    network: o.network,
    labels: algorithmLabels(o.names, run),
    extraHosts: o.extraHosts,
    ...(o.config.gpu ? { gpus: true } : {}),
  };
}

/** The same container in a network helper's namespace (its hosts entries come with it). */
export function inHelperNamespace(spec: ContainerSpec, helper: string): ContainerSpec {
  const { extraHosts: _hosts, ...rest } = spec;
  return {
    ...rest,
    network: `container:${helper}`,
    labels: { ...spec.labels, [HELPER_LABEL]: helper },
  };
}
