#!/usr/bin/env node
// Runs the R package's testthat suite against a real Federa server and two real nodes (algorithms in Docker).
//   node clients/r/tests/run-tests.mjs [--junit FILE] [--filter REGEX]
// Needs the build (npx tsc --build), a Docker engine and the images federa/average-r:local and
// federa/average-python:local (scripts/build-images.sh, scripts/build-algorithms.sh), and Debian's R packages
// (scripts/setup-machine.sh). The package is installed with `R CMD INSTALL` into a temporary library.
// Everything it makes (server data, keys, node networks and volumes) is removed at the end.
import { spawn, spawnSync } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@federa/server';
import { createContainerRuntime } from '@federa/node';
import { UserClient } from '@federa/client';
import { createPrivateKeyFile } from '@federa/common';
import { startLocalNode, waitForNodesOnline } from '../../../scripts/lib/local-node.mjs';

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'federa-r-tests-'));
const tag = `rtest-${process.pid}-${randomBytes(3).toString('hex')}`;
const nodes = [];
let server;
let faultyProxy;

/**
 * A faulty network between the R client and the server, for the tests of broken output downloads (a real network
 * cannot be made to fail on purpose; this is the one fake of the suite): `/cut/<path>` forwards to the server and
 * breaks a download of an output (`GET …/result/{id}/output`) off after half its bytes, `/cut-head/<path>` right
 * after its head, `/alter/<path>` changes one byte in the middle of it. Every other request passes unchanged.
 */
async function startFaultyProxy(serverPort) {
  const proxy = createServer((req, res) => {
    const match = /^\/(cut-head|cut|alter)(\/.*)$/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const [, mode, path] = match;
    const upstream = httpRequest(
      { host: '127.0.0.1', port: serverPort, path, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const isOutput =
          req.method === 'GET' &&
          /\/result\/\d+\/output$/.test(path.split('?')[0]) &&
          answer.statusCode === 200;
        if (!isOutput) {
          answer.pipe(res);
          return;
        }
        if (mode === 'cut-head') {
          answer.destroy();
          res.flushHeaders();
          res.socket?.end();
          return;
        }
        const half = Math.floor(Number(answer.headers['content-length']) / 2);
        let seen = 0;
        let stopped = false;
        answer.on('data', (chunk) => {
          if (stopped) return;
          if (mode === 'cut' && seen + chunk.length >= half) {
            stopped = true;
            answer.destroy();
            res.write(chunk.subarray(0, half - seen), () => res.destroy());
            return;
          }
          if (mode === 'alter' && seen <= half && half < seen + chunk.length) {
            chunk = Buffer.from(chunk);
            chunk[half - seen] = chunk[half - seen] === 0x41 ? 0x42 : 0x41;
          }
          seen += chunk.length;
          res.write(chunk);
        });
        answer.on('end', () => res.end());
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise((done) => proxy.listen(0, '127.0.0.1', done));
  return proxy;
}

async function main() {
  for (const image of ['federa/average-r:local', 'federa/average-python:local', 'federa/helper:local']) {
    if (spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' }).status !== 0)
      throw new Error(
        `the image ${image} is missing: run scripts/build-images.sh and scripts/build-algorithms.sh`,
      );
  }

  // ---- the R package, installed the way users install it
  const lib = join(dir, 'lib');
  mkdirSync(lib);
  const install = spawnSync('R', ['CMD', 'INSTALL', '--no-docs', '--no-html', '-l', lib, 'clients/r'], {
    cwd: repo,
    encoding: 'utf8',
  });
  if (install.status !== 0)
    throw new Error(`R CMD INSTALL clients/r failed:\n${install.stdout}${install.stderr}`);

  // ---- server
  const rootPassword = `Root-${randomBytes(9).toString('base64url')}1!`;
  const config = join(dir, 'server.yaml');
  writeFileSync(
    config,
    [
      'environments:',
      '  test:',
      '    description: Federa R client tests',
      '    ip: 127.0.0.1',
      `    port: 0`,
      '    api_path: /api',
      `    uri: sqlite:///${join(dir, 'server.sqlite')}`,
      `    jwt_secret_key: ${randomBytes(32).toString('hex')}`,
      '    bcrypt_rounds: 4',
      '    root_user:',
      '      email: root@r-tests.example',
      `      password: "${rootPassword}"`,
      '    password_policy: {max_failed_attempts: 50, max_failed_attempts_per_address: 500}',
      `    directories: {data: ${join(dir, 'server')}, log: ${dir}}`,
      '    logging: {level: warn, use_console: false, file: server.log}',
      '',
    ].join('\n'),
  );
  server = await startServer({ configFile: config, environment: 'test', port: 0 });
  const admin = new UserClient({ host: 'http://127.0.0.1', port: server.port, apiPath: '/api' });
  await admin.authenticate('root', rootPassword);

  // ---- two organizations with a node each in an encrypted collaboration, and a researcher
  const orgs = [];
  for (const name of ['R Hospital A', 'R Hospital B'])
    orgs.push(await admin.organization.create({ name: `${name} ${tag}`, country: 'NL' }));
  const collaboration = await admin.collaboration.create({
    name: `R study ${tag}`,
    organizationIds: orgs.map((o) => o.id),
    encrypted: true,
  });
  const researcherRole = (await admin.role.list({ name: 'Researcher' }))[0];
  const researcherPassword = `Res-${randomBytes(9).toString('base64url')}1!`;
  await admin.user.create({
    username: `r-researcher-${tag}`,
    firstname: 'Rita',
    lastname: 'Researcher',
    email: `rita-${tag}@r-tests.example`,
    password: researcherPassword,
    organizationId: orgs[0].id,
    roles: [researcherRole.id],
  });
  const ages = [
    [31, 45, 52, 60, 38],
    [29, 70, 41, 55],
  ];
  const keys = [];
  for (const [i, o] of orgs.entries()) {
    const csv = join(dir, `org-${o.id}.csv`);
    writeFileSync(csv, `id,age\n${ages[i].map((a, n) => `${n + 1},${a}`).join('\n')}\n`);
    const key = join(dir, `org-${o.id}.pem`);
    await createPrivateKeyFile(key, { modulusBits: 2048 });
    keys.push(key);
    const name = `${tag}-${i + 1}`;
    nodes.push(
      await startLocalNode({
        admin,
        serverPort: server.port,
        collaborationId: collaboration.id,
        organizationId: o.id,
        name,
        csv,
        privateKey: key,
        configFile: join(dir, `${name}.yaml`),
        dataDir: join(dir, name),
        logDir: dir,
      }),
    );
  }
  await waitForNodesOnline(admin, collaboration.id, 2, `logs in ${dir}`);
  faultyProxy = await startFaultyProxy(server.port);

  // ---- what the R tests need, in a file only this run can read
  const all = ages.flat();
  const settings = join(dir, 'settings.json');
  writeFileSync(
    settings,
    JSON.stringify({
      host: `http://127.0.0.1:${server.port}`,
      faulty_proxy: `http://127.0.0.1:${faultyProxy.address().port}`,
      api_path: '/api',
      root: { username: 'root', password: rootPassword },
      researcher: { username: `r-researcher-${tag}`, password: researcherPassword },
      organizations: orgs.map((o) => o.id),
      keys,
      collaboration_id: collaboration.id,
      image: 'federa/average-r:local',
      python_image: 'federa/average-python:local',
      expected: { average: all.reduce((a, b) => a + b, 0) / all.length, count: all.length, ages },
      repo,
      tag,
      tmp: dir,
    }),
    { mode: 0o600 },
  );
  const junit = option('junit') ? resolve(option('junit')) : '';
  const filter = option('filter') ?? '';
  // testthat's JunitReporter needs the xml2 package, which is not among the R client's Debian packages: the
  // JUnit file (read by scripts/test-summary.mjs) is written here from the results instead.
  const script = [
    `.libPaths(c(${JSON.stringify(lib)}, .libPaths()))`,
    'suppressPackageStartupMessages({ library(testthat); library(federa) })',
    'testthat::set_max_fails(Inf)',
    `filter <- ${JSON.stringify(filter)}`,
    `res <- test_dir(${JSON.stringify(join(repo, 'clients/r/tests/testthat'))}, package = "federa",`,
    '  load_package = "installed", reporter = SummaryReporter$new(show_praise = FALSE), stop_on_failure = FALSE,',
    '  filter = if (nzchar(filter)) filter else NULL)',
    'df <- as.data.frame(res)',
    'bad <- df$failed > 0 | df$error',
    'skipped <- df$skipped & !bad',
    `junit <- ${JSON.stringify(junit)}`,
    'if (nzchar(junit)) {',
    '  esc <- function(x) { x <- gsub("&", "&amp;", x, fixed = TRUE); x <- gsub("<", "&lt;", x, fixed = TRUE);',
    '    x <- gsub(">", "&gt;", x, fixed = TRUE); gsub("\\"", "&quot;", x, fixed = TRUE) }',
    '  cases <- sprintf("  <testcase classname=\\"%s\\" name=\\"%s\\" time=\\"%.3f\\">%s</testcase>", esc(df$file), esc(df$test), df$real,',
    '    ifelse(bad, "<failure message=\\"failed\\"/>", ifelse(skipped, "<skipped/>", "")))',
    '  writeLines(c("<?xml version=\\"1.0\\" encoding=\\"UTF-8\\"?>",',
    '    sprintf("<testsuite name=\\"federa-r\\" errors=\\"0\\" failures=\\"%d\\" skipped=\\"%d\\" tests=\\"%d\\">", sum(bad), sum(skipped), nrow(df)),',
    '    cases, "</testsuite>"), junit)',
    '}',
    'cat(sprintf("\\nR client: %d passed, %d failed\\n", sum(!bad & !skipped), sum(bad | skipped)))',
    'quit(save = "no", status = if (any(bad | skipped)) 1 else 0)',
  ].join('\n');
  // Asynchronously: the server and the nodes run in this process and must keep answering meanwhile.
  const run = spawn('Rscript', ['-e', script], {
    cwd: repo,
    stdio: 'inherit',
    env: { ...process.env, FEDERA_R_TEST_SETTINGS: settings, R_LIBS_USER: lib },
  });
  return await new Promise((done) => run.on('close', (code) => done(code ?? 1)));
}

async function teardown() {
  for (const n of nodes) await n.running.stop().catch(() => undefined);
  if (faultyProxy) {
    faultyProxy.closeAllConnections();
    await new Promise((done) => faultyProxy.close(done));
  }
  if (server) await server.close().catch(() => undefined);
  const runtime = createContainerRuntime();
  for (const n of nodes) {
    // Containers of runs a failed test left running (e.g. one that was to be killed), by this run's names.
    const left = spawnSync('docker', ['ps', '-aq', '--filter', `name=^federa-${n.name}-`], {
      encoding: 'utf8',
    });
    const ids = (left.stdout ?? '').split('\n').filter(Boolean);
    if (ids.length) spawnSync('docker', ['rm', '-f', ...ids], { stdio: 'ignore' });
    for (const v of await runtime.listVolumes({ prefix: `federa-${n.name}-` }).catch(() => []))
      await runtime.removeVolume(v.name).catch(() => undefined);
    await runtime.removeNetwork(`federa-${n.name}-net`).catch(() => undefined);
  }
  if (!process.env.FEDERA_R_TEST_KEEP) rmSync(dir, { recursive: true, force: true });
}

let status = 1;
try {
  status = await main();
} catch (error) {
  console.error(`R client tests: set-up failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await teardown();
}
process.exit(status);
