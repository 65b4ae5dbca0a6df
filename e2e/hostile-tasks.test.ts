/**
 * The node survives any task (docs/security.md): a table of hostile tasks against a real node process, on the host
 * and dockerized, with the real server and Docker. Each hostile task ends as a finished run whose log says why, the
 * node logs a line with the task id, run id and reason, nothing escapes as an uncaught error, no task is started
 * twice (not even after a restart), and the node then completes a normal task.
 *
 * Some tasks the server now refuses (an empty or malformed image): they are written into the database directly, as
 * an older server, or one a node does not trust, could hand them out. Needs Docker and the images of
 * scripts/build-images.sh and scripts/build-algorithms.sh.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RsaCryptor, generatePrivateKeyPem, openSealedLog } from '@federa/common';

import {
  createFederation,
  createNodeProcess,
  type E2eServer,
  type Federation,
  type NodeLogLine,
  type NodeMode,
  type NodeProcess,
  startE2eServer,
  until,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '..');
const START_LINE = 'federa/start-line:local';
const AVERAGE = 'federa/average-python:local';
const CSV = 'age\n30\n40\n';
const tag = `ht${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

interface ResultView {
  id: number;
  status: string;
  log: string | null;
  result: string | null;
  finished_at: string | null;
  task: { id: number } | number;
}

/** A task the server refuses today; the test writes it into the database as a server could have handed it out. */
interface Planted {
  readonly what: string;
  readonly image: string;
  readonly status: string;
  readonly log: RegExp;
}
const PLANTED: Planted[] = [
  { what: 'an empty image', image: '', status: 'failed', log: /image "" must not be empty/ },
  { what: 'a blank image', image: '   ', status: 'failed', log: /whitespace/ },
  { what: 'an image with a newline', image: 'alpine\nlatest', status: 'failed', log: /whitespace/ },
  {
    what: 'an uppercase image',
    image: 'Federa/Start-Line',
    status: 'failed',
    log: /path component 'Federa'/,
  },
  {
    what: 'an image climbing with ..',
    image: '../../images/x',
    status: 'failed',
    log: /registry host '\.\.'/,
  },
  { what: 'an image with .. inside', image: 'federa/../x', status: 'failed', log: /path component '\.\.'/ },
  { what: 'a 100 000 character image', image: 'a'.repeat(100_000), status: 'failed', log: /at most 512/ },
  { what: 'an image with a bad tag', image: 'federa/x:-1', status: 'failed', log: /invalid tag/ },
  ...(process.env.FEDERA_TEST_DB === 'postgres'
    ? [] // PostgreSQL text cannot hold NUL
    : [{ what: 'an image with a NUL', image: 'alp\u0000ine', status: 'failed', log: /control characters/ }]),
];

/** A task the server accepts, but the node cannot or must not run as asked. */
interface Live {
  readonly what: string;
  readonly image: string;
  readonly database?: string;
  /** Raw input text sent to the server; `encrypt` wraps the bytes for the node's organization. */
  readonly input: { raw: string } | { encrypt: string };
  readonly status: string;
  readonly log: RegExp;
}
const LIVE: Live[] = [
  {
    what: 'an image of an unreachable registry',
    image: '127.0.0.1:1/federa/nothing:1',
    input: { encrypt: 'x' },
    status: 'non-existing Docker image',
    log: /could not be pulled/,
  },
  {
    what: 'an image of a registry whose name does not resolve',
    image: 'registry.invalid/federa/nothing:1',
    input: { encrypt: 'x' },
    status: 'non-existing Docker image',
    log: /could not be pulled/,
  },
  {
    what: 'input that is not encrypted at all',
    image: START_LINE,
    input: { raw: 'json.{"method": "average"}' },
    status: 'failed',
    log: /the task input could not be read/,
  },
  {
    what: 'input that is not base64',
    image: START_LINE,
    input: { raw: '@@@ not base64 %%%$$$!!!' },
    status: 'failed',
    log: /the task input could not be read/,
  },
  {
    what: 'input encrypted for another key',
    image: START_LINE,
    input: { raw: '' }, // replaced below by a real encryption for a key the node does not have
    status: 'failed',
    log: /the task input could not be read/,
  },
  {
    what: 'a 10 MB input that does not decrypt',
    image: START_LINE,
    input: { raw: 'A'.repeat(10 * 1024 * 1024) },
    status: 'failed',
    log: /the task input could not be read/,
  },
  {
    what: 'a method that is no function name',
    image: AVERAGE,
    input: { encrypt: 'json.{"method": "../../../bin/sh", "args": [], "kwargs": {}}' },
    status: 'crashed',
    log: /the method '\.\.\/\.\.\/\.\.\/bin\/sh' is not the name of a Python function[\s\S]*exited with code 1/,
  },
  {
    what: 'input that is not JSON for an algorithm that wants JSON',
    image: AVERAGE,
    input: { encrypt: '\u0000\u0001 not json {{{' },
    status: 'crashed',
    log: /exited with code 1/,
  },
];
/** Tasks that name a database the node does not have: it falls back to `default` (seed), nothing else is read. */
const FALLBACK: Live[] = [
  {
    what: 'a database label that climbs out of the data folder',
    image: START_LINE,
    database: '../../../../etc/passwd',
    input: { encrypt: 'x' },
    status: 'completed',
    log: /started task-/,
  },
  {
    what: 'an unknown database label',
    image: START_LINE,
    database: 'no-such-database',
    input: { encrypt: 'x' },
    status: 'completed',
    log: /started task-/,
  },
];

let server: E2eServer;

beforeAll(async () => {
  execFileSync(join(ROOT, 'scripts/build-algorithms.sh'), { stdio: 'ignore' });
  server = await startE2eServer('0.0.0.0');
}, 120_000);

afterAll(async () => {
  await server?.close();
}, 60_000);

const resultOf = async (taskId: number): Promise<ResultView> =>
  (await server.api<ResultView[]>('GET', `/task/${taskId}/result`)).body[0]!;

const readyCount = (np: NodeProcess): number => np.log().filter((l) => l.event === 'node.ready').length;

describe.each<NodeMode>(['host', 'dockerized'])('a node (%s) survives any task', (mode) => {
  let fed: Federation;
  let np: NodeProcess;

  afterAll(async () => {
    if (np) {
      if (process.env.FEDERA_TEST_KEEP_LOG)
        console.log(
          np
            .log()
            .map((l) => JSON.stringify(l))
            .join('\n'),
        );
      await np.remove();
    }
  }, 60_000);

  it('ends every hostile task with a failed status, a readable log and a node log line, runs none twice, stays up, and completes a normal task after them', async () => {
    fed = await createFederation(server, true, `${tag}${mode}`, [CSV, CSV]);
    const org = fed.orgs[0]!;
    np = await createNodeProcess({
      mode,
      name: `${tag}-${mode}`,
      apiKey: org.apiKey,
      serverPort: server.port,
      encrypted: true,
      csv: CSV,
    });
    const post = async (image: string, input: string, database = 'default'): Promise<number> => {
      const r = await server.api<{ id: number }>('POST', '/task', {
        name: 'hostile',
        image,
        database,
        collaboration_id: fed.collaborationId,
        organizations: [{ id: org.id, input }],
      });
      expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(201);
      return r.body.id;
    };

    // Planted before the node starts: it finds them at its first synchronisation. Their input is fine (encrypted
    // for the key the node will upload): only the image is wrong.
    const cryptor = new RsaCryptor(np.privateKeyPem);
    const planted = new Map<number, Planted>();
    for (const row of PLANTED) {
      const id = await post(
        START_LINE,
        cryptor.encryptBytesToString(Buffer.from('x'), cryptor.publicKeyBase64),
      );
      await server.ctx.dbh.db.updateTable('task').set({ image: row.image }).where('id', '=', id).execute();
      planted.set(id, row);
    }
    np.start();
    await until(
      'node ready',
      async () => readyCount(np),
      (n) => n === 1,
      60_000,
      250,
    );

    const publicKey = (await server.api<{ public_key: string }>('GET', `/organization/${org.id}`)).body
      .public_key;
    const stranger = new RsaCryptor(await generatePrivateKeyPem({ modulusBits: 2048 }));
    const live = new Map<number, Live>();
    for (const row of [...LIVE, ...FALLBACK]) {
      const input =
        'encrypt' in row.input
          ? cryptor.encryptBytesToString(Buffer.from(row.input.encrypt), publicKey)
          : row.what === 'input encrypted for another key'
            ? stranger.encryptBytesToString(Buffer.from('json.{}'), stranger.publicKeyBase64)
            : row.input.raw;
      live.set(await post(row.image, input, row.database), row);
    }

    const all = new Map<number, Planted | Live>([...planted, ...live]);
    const finished = new Map<number, ResultView>();
    await until(
      'every hostile task finished',
      async () => {
        if (!np.alive())
          throw new Error(
            `the node process ended: ${np
              .log()
              .slice(-5)
              .map((l) => JSON.stringify(l))
              .join('\n')}`,
          );
        for (const id of all.keys())
          if (!finished.has(id)) {
            const r = await resultOf(id);
            if (r.finished_at) finished.set(id, r);
          }
        return finished.size;
      },
      (n) => n === all.size,
      150_000,
      500,
    );

    // The node logs run.finished once the server has taken the report, and its output reaches the test later still.
    const log = await until(
      'a run.finished line of every hostile task in the node log',
      () => np.log(),
      (lines) =>
        [...all.keys()].every((id) => lines.some((l) => l.event === 'run.finished' && l.task_id === id)),
      30_000,
      100,
    );
    for (const [taskId, row] of all) {
      const r = finished.get(taskId)!;
      expect({ what: row.what, status: r.status }).toEqual({ what: row.what, status: row.status });
      // The log is sealed for the initiator (encrypted collaboration, docs/run-logs.md).
      expect(openSealedLog(cryptor, r.log ?? ''), row.what).toMatch(row.log);
      const lines = log.filter((l) => l.event === 'run.finished' && l.task_id === taskId);
      expect(lines, `${row.what}: one run.finished line`).toHaveLength(1);
      const line = lines[0]!;
      expect(line, row.what).toMatchObject({ result_id: r.id, status: row.status });
      expect(line.run_id, row.what).toEqual(expect.any(Number));
      if (row.status !== 'completed' && row.status !== 'crashed')
        expect(line.reason, row.what).toMatch(row.log);
    }
    // Nothing escaped, the node process is up, and no hostile image reached the engine.
    expect(log.filter((l) => l.event === 'node.uncaught' || l.event === 'run.error')).toEqual([]);
    expect(np.alive()).toBe(true);

    // After a restart nothing hostile is started again.
    await np.stop();
    np.start();
    await until(
      'node ready again',
      async () => readyCount(np),
      (n) => n === 2,
      60_000,
      250,
    );

    // And a normal task completes, with the algorithm's output.
    const normal = await post(START_LINE, cryptor.encryptBytesToString(Buffer.from('x'), publicKey));
    const done = await until(
      'normal task finished',
      () => resultOf(normal),
      (r) => !!r.finished_at,
      60_000,
      250,
    );
    expect(done.status, done.log ?? '').toBe('completed');
    const folder = `task-${String(done.id).padStart(9, '0')}`;
    expect(cryptor.decryptStringToBytes(done.result!).toString()).toBe(`json.{"ran": "${folder}"}`);
    expect(openSealedLog(cryptor, done.log ?? '')).toContain(`started ${folder}`);

    const after = np.log();
    const started = (taskId: number): NodeLogLine[] =>
      after.filter((l) => (l.event === 'run.started' || l.event === 'run.refused') && l.task_id === taskId);
    for (const [taskId, row] of all) expect(started(taskId), row.what).toHaveLength(1);
    expect(after.filter((l) => l.event === 'node.uncaught' || l.event === 'run.error')).toEqual([]);
    expect(np.alive()).toBe(true);
  }, 420_000);
});
