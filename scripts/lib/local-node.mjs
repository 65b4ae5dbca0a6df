// A node of a local federation, in this process: registered on the server, its configuration file written, and
// started with its log in a file. Used by scripts/federation.mjs (the main job) and clients/r/tests/run-tests.mjs.
import { spawn } from 'node:child_process';
import { chownSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadNodeConfig, startNode } from '@federa/node';

/**
 * Registers node `name` for `organizationId` in `collaborationId` (through the `admin` UserClient), writes its
 * configuration to `configFile` (an encrypted node reading `csv` as its `default` database, data in `dataDir`,
 * logs in `logDir`; its Docker objects named `<dockerPrefix>-<name>-…` when `dockerPrefix` is given) and starts it.
 * Returns `{ name, running }`.
 * With `o.podman` (`{ user, uid, gid, socket }`) the node runs its algorithms on that user's rootless Podman and
 * runs itself as that user, in a process of its own (`vnode-local start`): the files it reads are given to the user.
 */
export async function startLocalNode(o) {
  const created = await o.admin.node.create({
    collaborationId: o.collaborationId,
    organizationId: o.organizationId,
    name: o.name,
  });
  mkdirSync(dirname(o.configFile), { recursive: true });
  writeFileSync(
    o.configFile,
    [
      'application:',
      `  api_key: ${created.api_key}`,
      '  server_url: http://127.0.0.1',
      `  port: ${o.serverPort}`,
      '  api_path: /api',
      '  databases:',
      `    - {label: default, uri: ${o.csv}, type: csv}`,
      `  encryption: {enabled: true, private_key: ${o.privateKey}}`,
      `  directories: {data: ${o.dataDir}, log: ${o.logDir}}`,
      '  proxy_port: 0',
      ...(o.dockerPrefix ? [`  docker_prefix: ${o.dockerPrefix}`] : []),
      ...(o.podman ? ['  container_runtime: podman', `  podman_socket: ${o.podman.socket}`] : []),
      '',
    ].join('\n'),
  );
  if (o.podman) return { name: o.name, running: await startAsUser(o) };
  const log = pino(
    { level: 'info' },
    pino.destination({ dest: join(o.logDir, `${o.name}.log`), mkdir: true, sync: false }),
  );
  return {
    name: o.name,
    running: await startNode({ config: loadNodeConfig({ file: o.configFile, env: {} }), log }),
  };
}

const VNODE_LOCAL = fileURLToPath(new URL('../../packages/node/dist/bin/vnode-local.js', import.meta.url));

/** `vnode-local start` as the unprivileged user of rootless Podman; `stop()` ends it with SIGTERM and waits. */
async function startAsUser(o) {
  const { user, uid, gid } = o.podman;
  mkdirSync(o.dataDir, { recursive: true });
  for (const path of [dirname(o.configFile), o.configFile, o.dataDir, o.csv, o.privateKey])
    chownSync(path, uid, gid);
  const out = openSync(join(o.logDir, `${o.name}.log`), 'a');
  const child = spawn(
    'runuser',
    [
      '-u',
      user,
      '--',
      'env',
      `XDG_RUNTIME_DIR=/run/user/${uid}`,
      process.execPath,
      VNODE_LOCAL,
      'start',
      '-c',
      o.configFile,
    ],
    { stdio: ['ignore', out, out] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Waits until the collaboration's `count` nodes are all online (at most 60 s; `where` says where the logs are). */
export async function waitForNodesOnline(admin, collaborationId, count, where) {
  for (let waited = 0; ; waited += 250) {
    const list = await admin.node.list({ collaborationId });
    if (list.length === count && list.every((n) => n.status === 'online')) return;
    if (waited > 60_000) throw new Error(`the nodes did not come online within 60 s; ${where}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
