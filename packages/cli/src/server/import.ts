/**
 * `vserver import <file>` (docs/cli.md#vserver-import-file, docs/import-format.md): runs `vserver-local import` in a one-off container of the server
 * image, with the configuration at /mnt/config.yaml and the fixture at /mnt/import.yaml, and streams its output.
 * The server itself need not run: the importer writes to the configured database (a SQLite file's folder is
 * mounted as `vserver start` does; other databases must be reachable from the container).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { auditKeyPath, openAuditKey } from '@federa/common';
import { checkServerConfig } from '../config/validate.js';
import type { InstanceRef } from '../config/store.js';
import { connectDocker, type DockerEngine } from '../docker/engine.js';
import { chooseImage, ensureImage, warnOnMajorMismatch } from '../docker/images.js';
import { CliError, exitReasonOf, type ExitReason } from '../exit-codes.js';
import type { Env } from '../paths.js';
import type { Progress } from '../util/progress.js';
import { CONTAINER_DB_DIR, placeDatabase } from './database.js';
import { TYPE_LABEL } from './naming.js';
import { APP_DIR, CONTAINER_AUDIT_DIR, serverHostDataDir } from './start.js';

export interface ServerImportOptions {
  environment: string;
  image?: string;
  /** Passed on; vserver-local accepts it and does nothing (as vantage6 3.x). */
  dropAll?: boolean;
  /** Keep the container after it ran (default: removed). */
  keep?: boolean;
  /** Source checkout mounted over the application (`--mount-src`, alias `--develop`). */
  develop?: string;
}

/**
 * What an exit of `vserver-local import` means; its code is from the same table as this CLI's, so the command
 * ends with the same reason.
 */
const IMPORT_FAILURES: Partial<Record<ExitReason, string>> = {
  config: 'the fixture or the configuration is invalid',
  usage: 'vserver-local did not accept the command (is the image older than this CLI?)',
  unavailable: 'the database could not be reached from the container',
};

export const importContainerName = (name: string, scope: string): string => `federa-${name}-${scope}-import`;

export async function importIntoServer(
  ref: InstanceRef,
  fixtureFile: string,
  options: ServerImportOptions,
  progress: Progress,
  out: Writable = process.stdout,
  env: Env = process.env,
  engine?: DockerEngine,
): Promise<{ container: string; image: string }> {
  const fixture = resolve(fixtureFile);
  if (!existsSync(fixture)) throw new CliError('usage', `the fixture file ${fixture} does not exist`);
  const docker = engine ?? (await connectDocker(env));
  const raw = checkServerConfig(ref.file, options.environment, {});
  const dataDir = serverHostDataDir(ref, raw, env);
  const db = placeDatabase(typeof raw.uri === 'string' ? raw.uri : 'sqlite:///default.sqlite', dataDir);
  if (db.kind === 'memory')
    throw new CliError(
      'config',
      `${ref.file}: key 'uri': an in-memory database lives only inside a running server; importing into it from another container is not possible`,
    );
  checkServerConfig(ref.file, options.environment, { FEDERA_DB_URI: db.containerUri });

  const image = chooseImage('server', options.image, raw);
  // The image `vserver start` checked and pulled is used as it is: asking the registry again only costs time
  // (up to its time-out when it cannot be reached). Without a local copy it is pulled.
  const local = await docker.docker
    .getImage(image.ref)
    .inspect()
    .catch(() => undefined);
  if (local === undefined) await ensureImage(docker, image.ref, progress);
  await warnOnMajorMismatch(docker, image.ref, progress);

  const binds = [`${resolve(ref.file)}:/mnt/config.yaml:ro`, `${fixture}:/mnt/import.yaml:ro`];
  // Messages about the fixture name the admin's file, not /mnt/import.yaml.
  const containerEnv: Record<string, string> = {
    FEDERA_CONFIG_NAME: ref.name,
    FEDERA_IMPORT_SOURCE: fixture,
  };
  if (db.kind === 'sqlite-file') {
    mkdirSync(db.hostDir, { recursive: true });
    binds.push(`${db.hostDir}:${CONTAINER_DB_DIR}`);
    containerEnv.FEDERA_DB_URI = db.containerUri;
  } else if (db.localHost) {
    progress.warn(
      "the database URI points at this host's loopback address; inside the container that is the container itself. " +
        'Use an address the container can reach (e.g. host.docker.internal).',
    );
  }
  // The import is recorded in the server's audit log folder on this host (docs/audit.md).
  const hostAuditDir = join(dataDir, 'audit');
  mkdirSync(hostAuditDir, { recursive: true, mode: 0o700 });
  binds.push(`${hostAuditDir}:${CONTAINER_AUDIT_DIR}`);
  // The chain's key lives beside the folder; without it the container would start a key of its own.
  await openAuditKey(auditKeyPath(hostAuditDir));
  binds.push(`${auditKeyPath(hostAuditDir)}:${auditKeyPath(CONTAINER_AUDIT_DIR)}`);
  containerEnv.FEDERA_AUDIT_DIRECTORY = CONTAINER_AUDIT_DIR;
  if (options.develop) binds.push(`${resolve(options.develop)}:${APP_DIR}`);

  const container = importContainerName(ref.name, ref.scope);
  await docker.removeContainer(container);
  await docker.run({
    name: container,
    image: image.ref,
    cmd: [
      'vserver-local',
      'import',
      '-c',
      '/mnt/config.yaml',
      '-e',
      options.environment,
      ...(options.dropAll ? ['--drop-all'] : []),
      '/mnt/import.yaml',
    ],
    env: containerEnv,
    labels: { [TYPE_LABEL]: 'server-import', name: ref.name },
    binds,
    // Removed below, once its logs and exit code are read.
    autoRemove: false,
    extraHosts: ['host.docker.internal:host-gateway'],
  });
  let exitCode: number;
  try {
    await docker.streamLogs(container, out, { follow: true });
    exitCode = Number(
      ((await docker.docker.getContainer(container).wait()) as { StatusCode?: number }).StatusCode,
    );
  } finally {
    if (!options.keep) await docker.removeContainer(container).catch(() => undefined);
  }
  if (exitCode !== 0) {
    const reason = exitReasonOf(exitCode) ?? 'failure';
    const what = IMPORT_FAILURES[reason] ?? 'the import failed';
    throw new CliError(
      reason,
      `${what} (vserver-local import exited with code ${exitCode}; its output is above)`,
    );
  }
  return { container, image: image.ref };
}
