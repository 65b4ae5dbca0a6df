/**
 * Benchmark: time from posting a trivial task to its decrypted result, beside a bare `docker run` of the same
 * image with the same input, in the same run. Real server (in-process, SQLite), two real nodes (in-process,
 * encrypted collaboration, 2048-bit keys), Docker. Second figure: a master (federa/average-ts, central_average)
 * whose sub-task runs at both organizations, waited for through the proxy's long-poll
 * (docs/container-environment.md#waiting-for-a-sub-task), from its post to its result.
 *
 *   npx vite-node bench/task-roundtrip/run.ts [-- --runs 9] [--plain] [--runtime podman]
 *
 * --runtime podman: the second organization's node runs as the unprivileged user of rootless Podman (its own
 * process, podman-node.ts); the trivial task's round trip on it is printed beside the same on the Docker node, the
 * two alternating (target: Podman within 1.5x of Docker). Needs scripts/podman-rootless.sh's set-up.
 *
 * Also printed: the CPU time this process (server, both nodes, researcher) spent per master, and the master's
 * timeline (timeline.ts, from the nodes' logs). BENCH_MASTER_IMAGE=<image> times another build of the master's
 * image (A/B of an algorithm image); BENCH_LOG=<level> prints the nodes' logs instead of keeping them.
 *
 * Needs Docker, the base images and the algorithm images (scripts/build-images.sh, scripts/build-algorithms.sh).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { RsaCryptor, encodeBase64 } from '@federa/common';

import { startPodmanNode, type PodmanNode } from './podman-node.js';
import { compareSteps, TimelineRecorder } from './timeline.js';
import {
  buildImage,
  createFederation,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
} from '@federa/testing';

const argv = process.argv.slice(2);
const runs = Number(argv[argv.indexOf('--runs') + 1] ?? 9) || 9;
const encrypted = !argv.includes('--plain');
const runtimeArg = argv.includes('--runtime') ? argv[argv.indexOf('--runtime') + 1] : 'docker';
if (runtimeArg !== 'docker' && runtimeArg !== 'podman') throw new Error('--runtime must be docker or podman');
const onPodman = runtimeArg === 'podman';
if (onPodman && !encrypted) throw new Error('--runtime podman times the encrypted collaboration only');
const IMAGE = 'federa-bench/trivial:local';
const startLoad = loadavg()[0]!.toFixed(1);
const MASTER_IMAGE = process.env.BENCH_MASTER_IMAGE ?? 'federa/average-ts:local';
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

buildImage(
  IMAGE,
  'FROM federa/helper:local\nCMD ["/bin/sh", "-c", "cat $INPUT_FILE > /dev/null; printf \'json.{\\"answer\\": 42}\' > $OUTPUT_FILE"]\n',
);

const server = await startE2eServer();
const tag = `bench${Date.now().toString(36).slice(-5)}`;
const fed = await createFederation(server, encrypted, tag, ['age\n1\n', 'age\n2\n']);
const org = fed.orgs[0]!;
// The nodes' logs are kept in memory for the master's timeline (BENCH_LOG=<level> prints them instead).
const timeline = new TimelineRecorder();
const [started, second] = await Promise.all(
  fed.orgs.map((o, i) =>
    i === 1 && onPodman
      ? Promise.resolve(undefined)
      : startE2eNode(
          server,
          o,
          `${tag}-${i}`,
          encrypted,
          '',
          process.env.BENCH_LOG ? pino({ level: process.env.BENCH_LOG }) : timeline.logger(i),
        ),
  ),
);
if (!started || (!second && !onPodman)) throw new Error('two nodes were expected');
const podmanNode: PodmanNode | undefined = onPodman
  ? await startPodmanNode({
      serverPort: server.port,
      apiKey: fed.orgs[1]!.apiKey,
      csv: fed.orgs[1]!.csv,
      name: `${tag}-podman`,
      image: IMAGE,
    }).catch(async (error: unknown) => {
      // The Docker node and the server are stopped, and their objects removed, before the failure is told.
      await Promise.all([started.node.stop(), second?.node.stop()]);
      await server.close();
      removeNodeObjects(`${tag}-0`);
      throw error;
    })
  : undefined;
// The node made a 2048-bit key for speed of the test suite; the bench uses the node's key as the researcher's.
const researcher = encrypted
  ? new RsaCryptor(readFileSync(join(started.dataDir, 'private_key.pem'), 'utf8'))
  : undefined;

// Bare `docker run`: the same image and command, the same input and output files mounted (one bind mount: the
// files are all it needs), the engine's default network; create + start + attach (the log) + wait, then the
// output read back. The container is removed after the clock stops, as the node removes its own after reporting.
const bareDir = mkdtempSync(join(tmpdir(), 'federa-bench-bare-'));
mkdirSync(join(bareDir, 'task-000000001'));
const bareRun = (): number => {
  writeFileSync(join(bareDir, 'task-000000001/input'), 'json.{"method": "x"}');
  writeFileSync(join(bareDir, 'task-000000001/output'), '');
  const name = `${tag}-bare`;
  const t0 = performance.now();
  const r = spawnSync('docker', [
    'run',
    '--name',
    name,
    '-v',
    `${bareDir}:/mnt/data`,
    '-e',
    'INPUT_FILE=/mnt/data/task-000000001/input',
    '-e',
    'OUTPUT_FILE=/mnt/data/task-000000001/output',
    IMAGE,
  ]);
  const out = readFileSync(join(bareDir, 'task-000000001/output'), 'utf8');
  const ms = performance.now() - t0;
  spawnSync('docker', ['rm', '-f', name]);
  if (r.status !== 0 || !out.includes('42')) throw new Error(`bare run failed: ${r.stderr.toString()}`);
  return ms;
};

const federaRun = async (at: { id: number } = org): Promise<number> => {
  const t0 = performance.now();
  const publicKey = encrypted ? (await server.api('GET', `/organization/${at.id}`)).body.public_key : '';
  const input = Buffer.from('json.{"method": "x"}');
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'bench',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [
      {
        id: at.id,
        input: researcher ? researcher.encryptBytesToString(input, publicKey) : encodeBase64(input),
      },
    ],
  });
  if (posted.status !== 201) throw new Error(JSON.stringify(posted.body));
  let result: { result: string | null; status: string } | undefined;
  for (;;) {
    const list = (
      await server.api<{ result: string | null; status: string; finished_at: string | null }[]>(
        'GET',
        `/task/${posted.body.id}/result`,
      )
    ).body;
    if (list[0]?.finished_at) {
      result = list[0];
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const plain = researcher
    ? researcher.decryptStringToBytes(result.result!)
    : Buffer.from(result.result!, 'base64');
  const ms = performance.now() - t0;
  if (!plain.toString().includes('42') || result.status !== 'completed')
    throw new Error(`run failed: ${JSON.stringify(result)}`);
  return ms;
};

// The master: one run at organization 0 that creates a sub-task for both organizations and waits for it.
const masterCpu: number[] = [];
const masterRun = async (): Promise<number> => {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const postedAt = Date.now();
  const publicKey = encrypted ? (await server.api('GET', `/organization/${org.id}`)).body.public_key : '';
  const input = Buffer.from(
    'json.{"method": "central_average", "args": ["age"], "kwargs": {}, "master": true, "output_format": "json"}',
  );
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'bench-master',
    image: MASTER_IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [
      {
        id: org.id,
        input: researcher ? researcher.encryptBytesToString(input, publicKey) : encodeBase64(input),
      },
    ],
  });
  if (posted.status !== 201) throw new Error(JSON.stringify(posted.body));
  for (;;) {
    const [r] = (
      await server.api<{ result: string | null; status: string; finished_at: string | null }[]>(
        'GET',
        `/task/${posted.body.id}/result`,
      )
    ).body;
    if (r?.finished_at) {
      const plain = researcher
        ? researcher.decryptStringToBytes(r.result!)
        : Buffer.from(r.result!, 'base64');
      const ms = performance.now() - t0;
      timeline.record(posted.body.id, postedAt, Date.now());
      const cpu = process.cpuUsage(cpu0);
      masterCpu.push((cpu.user + cpu.system) / 1000);
      if (
        r.status !== 'completed' ||
        (JSON.parse(plain.toString().slice(5)) as { count?: number }).count !== 2
      )
        throw new Error(`master failed: ${JSON.stringify(r)} ${plain.toString()}`);
      return ms;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

// Latency of one task on a quiet node: before each measurement (either side) the node has finished the previous
// run, removed its container and made its next network helper ready. The two sides alternate, so that the load
// of the shared machine weighs on both alike; one unmeasured warm-up run of each comes first.
const settle = async (): Promise<void> => {
  await Promise.all([started.node.runs.idle(), second?.node.runs.idle()]);
  await new Promise((r) => setTimeout(r, 200));
};
const bare: number[] = [];
const federa: number[] = [];
const master: number[] = [];
const onPodmanNode: number[] = [];
let podmanSteps: Record<string, number>[] = [];
try {
  if (onPodman) {
    // The Podman node is another process: its quiet state is not visible here; the settle pause stands for it.
    await settle();
    await federaRun();
    await settle();
    await federaRun(fed.orgs[1]!);
    for (let i = 0; i < runs; i++) {
      await settle();
      federa.push(await federaRun());
      await settle();
      onPodmanNode.push(await federaRun(fed.orgs[1]!));
    }
  } else {
    await settle();
    bareRun();
    await federaRun();
    await settle();
    await masterRun();
    for (let i = 0; i < runs; i++) {
      await settle();
      bare.push(bareRun());
      await settle();
      federa.push(await federaRun());
      await settle();
      master.push(await masterRun());
    }
  }
  podmanSteps = podmanNode?.steps().slice(1) ?? [];
} finally {
  await Promise.all([started.node.stop(), second?.node.stop(), podmanNode?.stop()]);
  await server.close();
  removeNodeObjects(`${tag}-0`);
  removeNodeObjects(`${tag}-1`);
  rmSync(bareDir, { recursive: true, force: true });
  execFileSync('docker', ['rmi', '-f', IMAGE], { stdio: 'ignore' });
}

if (onPodman) {
  const md = median(federa);
  const mp = median(onPodmanNode);
  console.log(
    `task-roundtrip --runtime podman (${runs} runs each, encrypted collaboration; load average at the start ${startLoad}, at the end ${loadavg()[0]!.toFixed(1)})`,
  );
  console.log(
    `  Docker node (root daemon)      median ${md.toFixed(0)} ms   (${federa.map((x) => x.toFixed(0)).join(' ')})`,
  );
  console.log(
    `  Podman node (rootless, own user) median ${mp.toFixed(0)} ms   (${onPodmanNode.map((x) => x.toFixed(0)).join(' ')})`,
  );
  console.log(`  ratio Podman / Docker          ${(mp / md).toFixed(2)}x   (target ≤ 1.50x)`);
  console.log('  where the time goes (median of the measured runs)');
  const dockerSteps = timeline.stepsOf(0).slice(1);
  for (const line of compareSteps(median, [
    ['Docker', dockerSteps],
    ['Podman', podmanSteps],
  ]))
    console.log(line);
  process.exit(0);
}
const mb = median(bare);
const mf = median(federa);
console.log(
  `task-roundtrip (${runs} runs each, ${encrypted ? 'encrypted' : 'unencrypted'} collaboration; load average at the start ${startLoad}, at the end ${loadavg()[0]!.toFixed(1)})`,
);
console.log(
  `  bare docker run      median ${mb.toFixed(0)} ms   (${bare.map((x) => x.toFixed(0)).join(' ')})`,
);
console.log(
  `  federa post→result   median ${mf.toFixed(0)} ms   (${federa.map((x) => x.toFixed(0)).join(' ')})`,
);
console.log(`  ratio                ${(mf / mb).toFixed(2)}x   (target ≤ 1.20x)`);
const mm = median(master);
console.log(
  `  master + 2 sub-runs  median ${mm.toFixed(0)} ms   (${master.map((x) => x.toFixed(0)).join(' ')})`,
);
console.log(`  master ratio         ${(mm / mb).toFixed(2)}x   (target ≤ 2.50x; 2 nodes, sub-task at both)`);
console.log(
  `  CPU of this process (server + 2 nodes + researcher) per master: median ${median(masterCpu.slice(1)).toFixed(0)} ms`,
);
console.log('  master timeline (median ms after the node took the master run on)');
for (const line of timeline.summary(median, 1)) console.log(line);
process.exit(0);
