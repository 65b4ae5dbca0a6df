/**
 * The node's container engine at start: the configured runtime (docs/deploy-node.md), asked whether it answers and
 * can be used; for rootless Podman also what the host lacks, each missing feature logged and named in the refusal;
 * then the registry logins of the configuration.
 */
import type { Logger } from 'pino';

import type { NodeConfig } from './config/node-config.js';
import { StartupError } from './errors.js';
import { createContainerRuntime, PodmanRuntime, type ContainerRuntime } from './runtime/index.js';

export async function connectRuntime(
  config: NodeConfig,
  log: Logger,
  injected: ContainerRuntime | undefined,
  /** Called once the engine answered, before the registry logins (a stop during the start ends it there). */
  checkpoint: () => void = () => undefined,
): Promise<ContainerRuntime> {
  const runtime =
    injected ??
    createContainerRuntime({
      kind: config.runtime.kind,
      ...(config.runtime.socketPath !== undefined ? { socketPath: config.runtime.socketPath } : {}),
      registries: config.registries,
      logger: log.child({ component: 'runtime' }),
    });
  const pinged = await runtime.ping().then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  const missing =
    runtime instanceof PodmanRuntime && config.runtime.kind === 'podman'
      ? await runtime.missingFeatures()
      : [];
  for (const m of missing)
    log.warn(
      { event: 'podman.missing', feature: m.feature, fix: m.fix },
      `rootless Podman: missing ${m.feature}`,
    );
  if (pinged !== undefined) {
    const lacking =
      missing.length > 0
        ? `; this host lacks: ${missing.map((m) => `${m.feature} (${m.fix})`).join('; ')}`
        : '';
    throw new StartupError(`the container engine cannot be used: ${pinged.message}${lacking}`, {
      cause: pinged,
    });
  }
  checkpoint();
  for (const reg of config.registries) {
    await runtime.login(reg).then(
      () => log.info({ event: 'registry.login', registry: reg.registry }, 'logged in to a registry'),
      (e: unknown) =>
        log.warn(
          { event: 'registry.login_failed', registry: reg.registry, err: (e as Error).message },
          'registry login failed; pulls from it may fail',
        ),
    );
  }
  return runtime;
}
