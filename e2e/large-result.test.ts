/**
 * A large output, end to end (docs/large-results.md): a real server, a real node, the algorithm in Docker. An output
 * above the node's `large_result_mb` is encrypted for the initiator as a stream, uploaded into the server's result
 * store and downloaded as a stream; the bytes decrypt to exactly what the algorithm wrote, and the store holds them
 * encrypted. A small output still takes the 3.x path (inline `result`). 20 MiB here; `bench/large-result` passes
 * 200 MiB and measures memory. Needs Docker and `federa/helper:local` (scripts/build-images.sh).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RsaCryptor, decryptingStream, encodeBase64 } from '@federa/common';

import {
  buildImage,
  createFederation,
  removeNodeObjects,
  storedFiles,
  startE2eNode,
  startE2eServer,
  until,
  type E2eServer,
  type Federation,
  type StartedNode,
} from '@federa/testing';

const tag = `lr${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
/** Writes `bytes N` of a line that names the output (input: `bytes N`), as its output. */
const IMAGE = `federa-test/${tag}-bytes:local`;
const SCRIPT = `n=$(head -c 32 "$INPUT_FILE" | tr -cd '0-9')
yes 'federa large output line, always the same' | head -c "$n" > "$OUTPUT_FILE"
`;
const LINE = 'federa large output line, always the same\n';
const MIB = 1024 * 1024;

let server: E2eServer;
let fed: Federation;
let node: StartedNode;
let store: string;

/** The bytes the algorithm writes for `bytes n`. */
function expected(n: number): Buffer {
  return Buffer.from(LINE.repeat(Math.ceil(n / LINE.length)).slice(0, n));
}
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  buildImage(IMAGE, 'FROM federa/helper:local\nCOPY run.sh /run.sh\nCMD ["/bin/sh", "/run.sh"]\n', {
    'run.sh': SCRIPT,
  });
  store = mkdtempSync(join(tmpdir(), `federa-${tag}-store-`));
  server = await startE2eServer('127.0.0.1', {
    config: { result_store: { type: 'folder', directory: store } },
  });
  fed = await createFederation(server, true, tag, ['age\n1\n', 'age\n2\n']);
  node = await startE2eNode(server, fed.orgs[0]!, `${tag}-0`, true, '  large_result_mb: 1\n');
}, 120_000);

afterAll(async () => {
  await node?.node.stop().catch(() => undefined);
  await server?.close();
  removeNodeObjects(`${tag}-0`);
  rmSync(store, { recursive: true, force: true });
  try {
    execFileSync('docker', ['rmi', '-f', IMAGE], { stdio: 'ignore' });
  } catch {
    /* gone already */
  }
}, 60_000);

interface ResultView {
  id: number;
  status: string;
  result: string | null;
  log: string | null;
  result_stored: { size: number; sha256: string } | null;
}

/** Posts `bytes n` to organization A as the root user (its own organization) and waits for the finished run. */
async function run(n: number, researcher: RsaCryptor): Promise<ResultView> {
  const org = fed.orgs[0]!.id;
  const key = (await server.api('GET', `/organization/${org}`)).body.public_key as string;
  const posted = await server.api<{ id: number }>('POST', '/task', {
    name: 'large result',
    image: IMAGE,
    collaboration_id: fed.collaborationId,
    organizations: [{ id: org, input: researcher.encryptBytesToString(Buffer.from(`bytes ${n}`), key) }],
  });
  expect(posted.status, JSON.stringify(posted.body)).toBe(201);
  const [done] = await until(
    'the run is finished',
    async () => (await server.api<ResultView[]>('GET', `/task/${posted.body.id}/result`)).body,
    (rs) =>
      rs.length === 1 &&
      rs[0]!.status !== 'pending' &&
      rs[0]!.status !== 'initializing' &&
      rs[0]!.status !== 'active',
    120_000,
    200,
  );
  return done!;
}

describe('a large output', () => {
  it('goes through the result store as a stream, arrives identical, and rests encrypted', async () => {
    const researcher = await RsaCryptor.fromFile(join(node.dataDir, 'private_key.pem'));
    const n = 20 * MIB + 7;
    const done = await run(n, researcher);
    expect(done.status, done.log ?? '').toBe('completed');
    expect(done.result).toBeNull();
    expect(done.result_stored?.size).toBeGreaterThan((n * 4) / 3);

    const res = await fetch(`${server.url}/api/result/${done.id}/output`, {
      headers: { authorization: `Bearer ${server.rootToken}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-federa-sha256')).toBe(done.result_stored!.sha256);
    const hash = createHash('sha256');
    let size = 0;
    await pipeline(Readable.fromWeb(res.body! as never), decryptingStream(researcher), async (plain) => {
      for await (const chunk of plain as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
      }
    });
    expect(size).toBe(n);
    expect(hash.digest('hex')).toBe(sha(expected(n)));

    // At rest: one file, in its run's folder (docs/large-results.md#the-result-store), the encrypted text (three
    // parts), not a line of the plaintext in it.
    const files = await storedFiles(store);
    expect(files).toEqual([`result-${done.id}-${done.result_stored!.sha256}`]);
    const atRest = readFileSync(join(store, `result-${done.id}`, files[0]!));
    expect(sha(atRest)).toBe(done.result_stored!.sha256);
    expect(atRest.subarray(0, 4096).toString('latin1').split('$')).toHaveLength(3);
    expect(atRest.includes(Buffer.from('federa large output line'))).toBe(false);
    expect(atRest.includes(Buffer.from(encodeBase64(Buffer.from(LINE.repeat(3)))))).toBe(false);
  }, 180_000);

  it('below the threshold, still rides inline in result as 3.x', async () => {
    const researcher = await RsaCryptor.fromFile(join(node.dataDir, 'private_key.pem'));
    const done = await run(1000, researcher);
    expect(done.status).toBe('completed');
    expect(done.result_stored).toBeNull();
    expect(researcher.decryptStringToBytes(done.result!).equals(expected(1000))).toBe(true);
  }, 120_000);
});
