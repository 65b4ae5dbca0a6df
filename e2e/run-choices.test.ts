/**
 * End to end, all real (server, node in-process, Docker): the choices a node makes about a task before it runs
 * it. A `database` label the node does not have falls back to its `default` data source (seed requirement), and a
 * task refused by the node's image policy ends as a finished `not allowed` run whose log says why.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeBase64 } from '@federa/common';

import {
  buildImage,
  createFederation,
  type E2eServer,
  type Federation,
  removeNodeObjects,
  startE2eNode,
  startE2eServer,
  type StartedNode,
  until,
} from '@federa/testing';

const tag = `ch${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
/** Reports which data source it was given: the variables and the first data line of DATABASE_URI. */
const DB_IMAGE = `federa-test/${tag}-db:local`;
const REFUSED_IMAGE = `federa-test/${tag}-refused:local`;
const DB_SCRIPT = `printf 'json.{"uri": "%s", "label": "%s", "first": "%s", "other": "%s"}' \\
  "$DATABASE_URI" "$USER_REQUESTED_DATABASE_LABEL" "$(head -n 2 "$DATABASE_URI" | tail -n 1)" "$OTHER_DATABASE_URI" \\
  > "$OUTPUT_FILE"
echo "data source: $DATABASE_URI"
`;

let server: E2eServer;
let fed: Federation;
let node: StartedNode;
const nodeLog: string[] = [];

beforeAll(async () => {
  buildImage(DB_IMAGE, 'FROM federa/helper:local\nCOPY run.sh /run.sh\nCMD ["/bin/sh", "/run.sh"]\n', {
    'run.sh': DB_SCRIPT,
  });
  buildImage(REFUSED_IMAGE, 'FROM federa/helper:local\nCMD ["/bin/sh", "-c", "echo I ran"]\n');
  server = await startE2eServer();
  fed = await createFederation(server, false, tag, ['age\n11\n', 'age\n22\n']);
  const org = fed.orgs[0]!;
  // Two data sources, `default` and `other`; only this test's DB image is allowed.
  const dir = mkdtempSync(join(tmpdir(), `federa-${tag}-`));
  const other = join(dir, 'other.csv');
  writeFileSync(other, 'age\n99\n');
  const configFile = join(dir, `${tag}-0.yaml`);
  writeFileSync(
    configFile,
    `application:
  api_key: ${org.apiKey}
  server_url: http://127.0.0.1
  port: ${server.port}
  api_path: /api
  databases:
    - {label: default, uri: ${org.csv}, type: csv}
    - {label: other, uri: ${other}, type: csv}
  encryption: {enabled: false}
  directories: {data: ${join(dir, 'data')}, log: ${join(dir, 'log')}}
  proxy_port: 0
  policies:
    allowed_algorithms: ['^federa-test/${tag}-db:']
`,
  );
  node = await startE2eNode(
    server,
    org,
    `${tag}-0`,
    false,
    '',
    pino({ level: 'info' }, { write: (line: string) => void nodeLog.push(line) }),
    configFile,
  );
}, 120_000);

afterAll(async () => {
  await node?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
  for (const image of [DB_IMAGE, REFUSED_IMAGE]) {
    try {
      execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
    } catch {
      /* gone already */
    }
  }
}, 60_000);

interface ResultView {
  id: number;
  status: string;
  result: string | null;
  log: string | null;
  started_at: string | null;
  finished_at: string | null;
}

async function runTask(
  image: string,
  database?: string | { label: string }[],
): Promise<ResultView & { taskId: number }> {
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'choices',
    image,
    collaboration_id: fed.collaborationId,
    ...(typeof database === 'string' ? { database } : database ? { databases: database } : {}),
    organizations: [{ id: fed.orgs[0]!.id, input: encodeBase64(Buffer.from('json.{"method": "x"}')) }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const results = await until(
    'the run is finished',
    async () => (await server.api<ResultView[]>('GET', `/task/${posted.body.id}/result`)).body,
    (rs) => rs.length === 1 && rs[0]!.finished_at !== null,
    60_000,
    100,
  );
  return { ...results[0]!, taskId: posted.body.id };
}

const output = (r: ResultView): Record<string, string> =>
  JSON.parse(
    Buffer.from(r.result ?? '', 'base64')
      .toString()
      .replace(/^json\./, ''),
  ) as Record<string, string>;

describe('what a node chooses before it runs a task', () => {
  it("a database label the node does not have falls back to its 'default' data source", async () => {
    const unknown = await runTask(DB_IMAGE, 'omop-does-not-exist');
    expect(unknown.status, unknown.log ?? '').toBe('completed');
    expect(output(unknown)).toEqual({
      uri: '/mnt/data/data-0.csv',
      label: 'default',
      first: '11',
      other: '/mnt/data/other.csv',
    });
    expect(
      nodeLog.some(
        (l) =>
          l.includes('"event":"run.database_fallback"') && l.includes('"requested":"omop-does-not-exist"'),
      ),
    ).toBe(true);
    // The run's own log says which data it read.
    expect(unknown.log).toContain(
      "[federa node] this node has no database labelled 'omop-does-not-exist': the algorithm reads the 'default' database instead",
    );

    // A label the node has is used as asked (the fallback is not simply "always default").
    const known = await runTask(DB_IMAGE, 'other');
    expect(known.status, known.log ?? '').toBe('completed');
    expect(output(known)).toMatchObject({ uri: '/mnt/data/other.csv', label: 'other', first: '99' });
    expect(known.log).not.toContain('[federa node]');

    // The same label asked the vantage6 4.x way, as a list of databases, is used too, never silently `default`.
    const listed = await runTask(DB_IMAGE, [{ label: 'other' }]);
    expect(listed.status, listed.log ?? '').toBe('completed');
    expect(output(listed)).toMatchObject({ uri: '/mnt/data/other.csv', label: 'other', first: '99' });
  }, 60_000);

  it("an image outside the node's allowed algorithms ends as a finished 'not allowed' run with a readable log", async () => {
    const refused = await runTask(REFUSED_IMAGE);
    expect(refused.status).toBe('not allowed');
    expect(refused.started_at).not.toBeNull();
    expect(refused.finished_at).not.toBeNull();
    expect(refused.result ?? '').toBe('');
    expect(refused.log).toContain('[federa node] this node refuses the run');
    expect(refused.log).toContain(`the image ${REFUSED_IMAGE} is not in this node's allowed algorithms`);
    expect(refused.log).toContain(`^federa-test/${tag}-db:`);
    // The algorithm never ran.
    expect(refused.log).not.toContain('I ran');
    const task = (await server.api<{ complete: boolean }>('GET', `/task/${refused.taskId}`)).body;
    expect(task.complete).toBe(true);
  }, 60_000);

  it("keeps three network helpers ready, removes each run's helper with its container, and the spares when it stops", async () => {
    const helpers = (): string[] =>
      execFileSync(
        'docker',
        ['ps', '-aq', '--filter', 'label=vantage6-type=algorithm-helper', '--filter', `label=node=${tag}-0`],
        { encoding: 'utf8' },
      )
        .split('\n')
        .filter(Boolean);
    await node.node.runs.idle();
    const before = helpers();
    expect(before).toHaveLength(3);
    const r = await runTask(DB_IMAGE);
    expect(r.status, r.log ?? '').toBe('completed');
    await node.node.runs.idle();
    // The run took a spare (removed with the run's container); a new spare is ready in its place.
    const after = helpers();
    expect(after).toHaveLength(3);
    expect(after.filter((h) => before.includes(h))).toHaveLength(2);
    expect(after).not.toEqual(before);
    await node.node.stop();
    expect(helpers()).toHaveLength(0);
  }, 60_000);
});
