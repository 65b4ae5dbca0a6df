#!/usr/bin/env node
// The main job: a whole federation on this machine, from one command.
//   a server on its embedded SQLite database, three organizations with a node each and sample data,
//   an encrypted federated average (the example algorithm, in Docker) posted by a researcher through the
//   TypeScript client, its decrypted result beside the average computed directly from the CSV files,
//   and how long each step took. Then it keeps running (Ctrl-C stops it) or, with --once, tears down.
// Run through scripts/federation.sh, which does the set-up (packages, build, Docker, images) first.
//   node scripts/federation.mjs [--once] [--port 5000] [--image federa/average-python:local] [--r] [--runtime podman]
// --r runs the R example algorithm (algorithms/average-r, image federa/average-r:local) instead.
// --runtime podman runs each node as the unprivileged user of rootless Podman (scripts/podman-rootless.sh), its
// algorithms on that user's Podman.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@federa/server';
import { createContainerRuntime } from '@federa/node';
import { UserClient } from '@federa/client';
import { createPrivateKeyFile } from '@federa/common';
import { startLocalNode, waitForNodesOnline } from './lib/local-node.mjs';
import { checkoutId } from './lib/checkout.mjs';
import { publishAlgorithm } from './lib/publish-average.mjs';

const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : dflt;
};
const once = flag('once');
const port = Number(option('port', process.env.FEDERA_PORT ?? '5000'));
const image = flag('r') ? 'federa/average-r:local' : option('image', 'federa/average-python:local');
const runtimeKind = option('runtime', 'docker');
if (runtimeKind !== 'docker' && runtimeKind !== 'podman') {
  console.error(`--runtime must be docker or podman, not ${runtimeKind}`);
  process.exit(2);
}
const podman = runtimeKind === 'podman' ? podmanUser() : undefined;
const root = fileURLToPath(new URL('..', import.meta.url));

/** The user of rootless Podman that scripts/podman-rootless.sh set up, and its API socket. */
function podmanUser() {
  const user = process.env.FEDERA_PODMAN_USER ?? 'federa-podman';
  try {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
    return { user, uid, gid, socket: `/run/user/${uid}/podman/podman.sock` };
  } catch {
    console.error(`no user ${user}: run scripts/podman-rootless.sh (as root) first`);
    process.exit(2);
  }
}
const dir = resolve(root, '.data', 'federation');
// The nodes' Docker networks and volumes carry this checkout's id: two checkouts on one machine never share them.
const dockerPrefix = `federa-${checkoutId}`;

const t0 = Date.now();
const timings = [];
let last = t0;
const step = (what) => {
  const now = Date.now();
  timings.push([what, now - last]);
  last = now;
  console.log(`  ✓ ${what} (${((now - t0) / 1000).toFixed(1)} s)`);
};
const say = (text) => console.log(text);

say(`Federa federation: data in ${dir}, logs in ${join(dir, 'logs')}`);
// A fresh federation every run, so running twice works.
rmSync(dir, { recursive: true, force: true });
mkdirSync(join(dir, 'logs'), { recursive: true });

// ---- server
const rootPassword = `Fed-${randomBytes(9).toString('base64url')}1!`;
const serverConfig = join(dir, 'server.yaml');
writeFileSync(
  serverConfig,
  [
    'environments:',
    '  prod:',
    '    description: Federa demo federation',
    `    ip: 127.0.0.1`,
    `    port: ${port}`,
    '    api_path: /api',
    `    uri: sqlite:///${join(dir, 'server', 'federa.sqlite')}`,
    `    jwt_secret_key: ${randomBytes(32).toString('hex')}`,
    '    root_user:',
    '      email: root@federation.local',
    `      password: "${rootPassword}"`,
    `    directories: {data: ${join(dir, 'server')}, log: ${join(dir, 'logs')}}`,
    '    logging: {level: INFO, use_console: false, file: server.log}',
    '',
  ].join('\n'),
);
let server;
try {
  server = await startServer({ configFile: serverConfig, environment: 'prod', port });
} catch (error) {
  console.error(`The server did not start: ${error.message}`);
  if (error.code === 'EADDRINUSE' || /in use/i.test(error.message)) {
    console.error(
      `Port ${port} is taken (a federation already running?). Stop it, or use --port <free port>.`,
    );
  }
  process.exit(1);
}
step(`server listening at ${server.apiUrl} (SQLite)`);

// ---- organizations, collaboration, researcher, nodes
const admin = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });
await admin.authenticate('root', rootPassword);
const names = ['Hospital A', 'Hospital B', 'Registry C'];
const orgs = [];
for (const name of names)
  orgs.push(
    await admin.organization.create({
      name,
      country: 'NL',
      domain: `${name.toLowerCase().replace(/ /g, '-')}.example`,
    }),
  );
const collaboration = await admin.collaboration.create({
  name: 'Age study',
  organizationIds: orgs.map((o) => o.id),
  encrypted: true,
});
const researcherRole = (await admin.role.list({ name: 'Researcher' }))[0];
const researcherPassword = `Res-${randomBytes(9).toString('base64url')}1!`;
await admin.user.create({
  username: 'researcher',
  firstname: 'Rosa',
  lastname: 'Researcher',
  email: 'researcher@hospital-a.example',
  password: researcherPassword,
  organizationId: orgs[0].id,
  roles: [researcherRole.id],
});
step('3 organizations, an encrypted collaboration and a researcher created');

// ---- the catalogue: the example algorithm in the server's algorithm store, reviewed by two organizations
const reviewers = [];
for (const [i, o] of orgs.slice(1).entries()) {
  const username = `reviewer-${i + 1}`;
  const password = `Rev-${randomBytes(9).toString('base64url')}1!`;
  await admin.user.create({
    username,
    firstname: 'Rev',
    lastname: `Iewer ${i + 1}`,
    email: `${username}@${o.domain}`,
    password,
    organizationId: o.id,
    roles: [],
  });
  const client = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });
  await client.authenticate(username, password);
  reviewers.push({ username, organizationId: o.id, token: await client.accessToken() });
}
for (const [folder, image] of [
  ['average-python', 'federa/average-python:local'],
  ['group-means', 'federa/group-means:local'],
]) {
  const listed = await publishAlgorithm({
    storeUrl: `${server.url}/store/api`,
    rootToken: await admin.accessToken(),
    descriptionFile: join(root, 'algorithms', folder, 'algorithm-store.json'),
    image,
    reviewers,
  });
  step(
    `the algorithm store lists '${listed.display_name}' (${listed.status}, ${listed.digest.slice(0, 19)}…)`,
  );
}

// Sample data: one CSV per organization, and the average computed directly.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const allAges = [];
const csvs = orgs.map((o, i) => {
  const rows = Array.from({ length: 40 + i * 15 }, () => 20 + Math.floor(rand() * 60));
  allAges.push(...rows);
  const file = join(dir, 'data', `org-${o.id}.csv`);
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(file, `id,age\n${rows.map((age, n) => `${n + 1},${age}`).join('\n')}\n`);
  return file;
});
const expected = allAges.reduce((a, b) => a + b, 0) / allAges.length;

// Each organization's private key (RSA-4096); its node uploads the public key when it starts.
const keys = [];
for (const o of orgs) {
  const key = join(dir, 'keys', `privkey_org-${o.id}.pem`);
  mkdirSync(join(dir, 'keys'), { recursive: true });
  await createPrivateKeyFile(key);
  keys.push(key);
}
step('sample data and organization keys (RSA-4096) written');

const nodes = [];
for (const [i, o] of orgs.entries()) {
  const name = `federation-node-${i + 1}`;
  const nodeDir = join(dir, 'nodes', name);
  nodes.push(
    await startLocalNode({
      admin,
      serverPort: server.port,
      collaborationId: collaboration.id,
      organizationId: o.id,
      name,
      csv: csvs[i],
      privateKey: keys[i],
      configFile: join(nodeDir, `${name}.yaml`),
      dataDir: join(nodeDir, 'data'),
      logDir: join(dir, 'logs'),
      dockerPrefix,
      ...(podman ? { podman } : {}),
    }),
  );
}
await waitForNodesOnline(admin, collaboration.id, 3, 'see the node logs');
step(
  podman
    ? `3 nodes online (each as the unprivileged user ${podman.user}, on rootless Podman, with its private network and proxy)`
    : '3 nodes online (each with its private Docker network and proxy)',
);

// ---- the researcher runs the federated average
const researcher = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });
await researcher.authenticate('researcher', researcherPassword);
await researcher.setupEncryption(keys[0]);
const task = await researcher.task.create({
  collaborationId: collaboration.id,
  organizations: [orgs[0].id],
  name: 'federated average of age',
  description: 'central_average over all organizations',
  image,
  input: { method: 'central_average', args: ['age'], kwargs: {}, master: true, output_format: 'json' },
  database: 'default',
});
say(`  … task ${task.id} posted to ${names[0]} (master); it creates a sub-task at every organization`);
const results = await researcher.waitForResults(task.id, { timeoutMs: 5 * 60_000 });
const outcome = results[0];
step(`encrypted federated average computed by ${image}`);

const ok = outcome && outcome.status === 'completed' && Math.abs(outcome.result.average - expected) < 1e-9;
say('');
say(
  `Federated average of age: ${outcome?.result?.average ?? '(none)'} over ${outcome?.result?.count ?? '?'} rows at ${outcome?.result?.organizations ?? '?'} organizations`,
);
say(`Computed directly from the CSV files: ${expected} over ${allAges.length} rows`);
say(ok ? 'They match.' : `They do NOT match (status ${outcome?.status}); log:\n${outcome?.log ?? ''}`);
say('');
say('Step timings:');
for (const [what, ms] of timings) say(`  ${(ms / 1000).toFixed(2).padStart(7)} s  ${what}`);
say(`  ${((Date.now() - t0) / 1000).toFixed(2).padStart(7)} s  total`);

// Leaves nothing behind in Docker (the nodes' networks, data volumes and run volumes): the next run starts a fresh
// federation anyway. The data folder (.data/federation: logs, keys, configuration) stays until the next run.
const shutdown = async () => {
  for (const n of nodes) await n.running.stop().catch(() => undefined);
  await server.close();
  const runtime = createContainerRuntime(podman ? { kind: 'podman', socketPath: podman.socket } : {});
  for (const n of nodes) {
    for (const v of await runtime.listVolumes({ prefix: `${dockerPrefix}-${n.name}-` }))
      await runtime.removeVolume(v.name).catch(() => undefined);
    await runtime.removeNetwork(`${dockerPrefix}-${n.name}-net`).catch(() => undefined);
  }
};
if (once || !ok) {
  await shutdown();
  process.exit(ok ? 0 : 1);
}
say('');
say(
  `The federation keeps running. Web UI: ${server.url}/   API: ${server.apiUrl}   docs: ${server.url}/apidocs`,
);
say(`  root / ${rootPassword}        researcher / ${researcherPassword} (Hospital A, key ${keys[0]})`);
say(`  In the web UI, the researcher loads that key file to create encrypted tasks and read their results.`);
say(
  `  logs: ${join(dir, 'logs')}   Ctrl-C stops everything and removes the nodes' Docker networks and volumes (${dockerPrefix}-*); the data folder stays until the next run.`,
);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    say('\nStopping the nodes and the server…');
    shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
