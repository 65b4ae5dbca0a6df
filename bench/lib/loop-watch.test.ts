import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const watchModule = fileURLToPath(new URL('./loop-watch.mjs', import.meta.url));
const bareScript = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs `node --input-type=module -e code` and resolves with its exit code. */
const runNode = (code: string) =>
  new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: 'inherit' });
    child.once('exit', resolve);
  });

describe("a benchmark server's own event loop (loop-watch.mjs)", () => {
  it('counts a stall of the window and its garbage collections, and nothing before the window', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'federa-watch-test-'));
    dirs.push(dir);
    const file = join(dir, 'loop.json');
    const code = `
      import { watchLoop } from ${JSON.stringify(watchModule)};
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      const block = (ms) => { const until = performance.now() + ms; while (performance.now() < until); };
      watchLoop(${JSON.stringify(file)});
      block(500); // before the window: not counted
      process.kill(process.pid, 'SIGUSR2');
      await sleep(50);
      block(60); // the loop stands still for 60 ms
      await sleep(20); // the stall ends here: the garbage below, slow on a busy machine, is not part of it
      for (let i = 0; i < 50; i++) new Array(100000).fill(i); // garbage
      globalThis.gc?.();
      await sleep(50);
      process.kill(process.pid, 'SIGUSR1');
      await sleep(50);
    `;
    expect(await runNode(code)).toBe(0);
    const seen = JSON.parse(readFileSync(file, 'utf8'));
    expect(seen.stalls.n).toBeGreaterThanOrEqual(1);
    expect(seen.stalls.longest_ms[0]).toBeGreaterThanOrEqual(60);
    expect(seen.stalls.longest_ms[0]).toBeLessThan(500); // the stall before the window is not in it
    expect(seen.loop_delay_ms.max).toBeGreaterThanOrEqual(40); // 60 ms less the timer's 10 ms turn
    expect(seen.gc.young.n).toBeGreaterThanOrEqual(1);
  });
});

describe('bare Fastify doing a given amount of work per request (bare-server.mjs GET /work/:us)', () => {
  it('spends the CPU asked for on each request, and answers as GET /hello does', async () => {
    const child = spawn(process.execPath, [bareScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((resolve) =>
        child.stdout.once('data', (d: Buffer) => resolve(JSON.parse(String(d).split('\n')[0]!).port)),
      );
      const cpuOf = async (path: string) => {
        const t = performance.now();
        const r = await fetch(`http://127.0.0.1:${port}${path}`);
        return { ms: performance.now() - t, body: await r.json() };
      };
      await cpuOf('/work/0'); // warm
      const none = await cpuOf('/work/0');
      const some = await cpuOf('/work/30000');
      expect(some.body).toEqual({ hello: 'world' });
      expect(some.ms).toBeGreaterThanOrEqual(30);
      expect(none.ms).toBeLessThan(30);
      expect((await cpuOf('/work/not-a-number')).ms).toBeLessThan(30);
    } finally {
      child.kill();
    }
  });
});
