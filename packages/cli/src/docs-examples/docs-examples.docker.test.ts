/**
 * Every code example of the documentation runs as written, against a federation like the main job's
 * (docs-federation.ts: the server on its embedded database, nodes running the real algorithm images in Docker).
 *
 * The only changes to an example are its placeholders, replaced by this federation's values:
 *
 * | Placeholder in the docs                                   | Replaced by                                   |
 * |-----------------------------------------------------------|-----------------------------------------------|
 * | port `5000` / `7601` (with `http://localhost`/`127.0.0.1`)  | the test server's port                        |
 * | user `ada`, password `Change-me-1!` (first-hour-researcher) | the federation's researcher and password      |
 * | `process.env.FEDERA_PASSWORD`, `os.environ[...]`          | set in the environment, as the docs say       |
 * | passwords typed at `getpass` prompts                      | answered by the test                          |
 * | `.data/federation/keys/privkey_org-2.pem`, `privkey_Hospital_A.pem` | Hospital A's key file              |
 *
 * Ids (collaboration 1, organizations 2 and 3) are the federation's own, as in the main job. Between blocks the
 * test does what the reader does: it starts the node an example registered. A block in a language a reader runs
 * (python, js, ts, r) that no part of this test runs fails the inventory (docs-inventory.test.ts), unless the line above its fence is
 * `<!-- not-run: why -->` (doc-blocks.ts). Algorithm sources (docs/algorithm-development.md) are built into an
 * image as the page says, and that image computes the federated average. R blocks (docs/client-r.md) run in the R suite
 * (clients/r/tests/testthat/test-docs.R, against its own server and two nodes in Docker), started from here.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { UserClient } from '@federa/client';

import { buildDocImage, removeImages, splitFiles } from './algorithm-image.js';
import { docBlocks, runnableBlocks, type DocBlock } from './doc-blocks.js';
import { startDocsFederation, type DocsFederation } from './docs-federation.js';
import { RUN_HERE } from './run-here.js';
import { REPO, node, python, readerProject, run, substitute, type Substitution } from './run-example.js';

const tag = `fhdocs${process.pid.toString(36)}${randomBytes(2).toString('hex')}`;
let f: DocsFederation;
let work: string;
/** The federated average over the federation's three CSV files. */
let average: number;
let count: number;
/** Images built from the docs' algorithm sources. */
const images: string[] = [];

beforeAll(async () => {
  for (const image of ['federa/average-python:local', 'federa/average-ts:local'])
    if (spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' }).status !== 0)
      throw new Error(`the image ${image} is missing: run scripts/build-algorithms.sh`);
  if (!existsSync(join(REPO, 'packages/client/dist/index.js')))
    throw new Error('the TypeScript SDK is not built: run npx tsc --build');
  f = await startDocsFederation(tag);
  // The docs' ids are the main job's: collaboration 1 of Hospital A (2), Hospital B (3) and Registry C (4).
  expect([f.collaborationId, ...f.orgs.map((o) => o.id)]).toEqual([1, 2, 3, 4]);
  const all = f.orgs.flatMap((o) => o.ages);
  count = all.length;
  average = all.reduce((a, b) => a + b, 0) / count;
  // Scripts "in the repository" (README) live in a folder of the checkout that git ignores.
  mkdirSync(join(REPO, '.data'), { recursive: true });
  work = mkdtempSync(join(REPO, '.data', `${tag}-`));
}, 240_000);

afterAll(async () => {
  await f?.close();
  removeImages(images);
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The pages and languages this file has run, to check against RUN_HERE at the end. */
const ran = new Set<string>();
const blocksOf = (file: string, lang: string): DocBlock[] => {
  ran.add(`${file} ${lang}`);
  return runnableBlocks(REPO, file, [lang]);
};
const sumOf = (ages: readonly number[]): number => ages.reduce((a, b) => a + b, 0);
const hospitalA = () => f.orgs[0]!;
/** A new folder of the reader's own. */
const folder = (name: string): string => mkdtempSync(join(tmpdir(), `federa-${tag}-${name}-`));

describe('README.md and algorithms/README.md, against the main job’s federation', () => {
  const mainJob = (): Substitution[] => [
    ['5000', String(f.port)],
    ['.data/federation/keys/privkey_org-2.pem', hospitalA().key],
  ];

  it('README: the researcher’s TypeScript example prints the federated average', async () => {
    const [block, ...more] = blocksOf('README.md', 'js');
    expect(more).toEqual([]);
    const script = join(work, 'average.mjs');
    writeFileSync(script, substitute(block!, mainJob()));
    const { out } = await node(script, { cwd: REPO, env: { FEDERA_PASSWORD: f.researcher.password } });
    expect(out).toContain(`average: ${average}`);
    expect(out).toContain(`count: ${count}`);
    expect(out).toContain('organizations: 3');
  }, 180_000);

  it('README: the researcher’s Python example prints the federated average', async () => {
    const [block, ...more] = blocksOf('README.md', 'python');
    expect(more).toEqual([]);
    const script = join(work, 'average.py');
    writeFileSync(script, substitute(block!, mainJob()));
    const { out } = await python(script, { cwd: REPO, env: { FEDERA_PASSWORD: f.researcher.password } });
    expect(out).toContain(`'average': ${average}`);
    expect(out).toContain(`'count': ${count}`);
    expect(out).toContain(`'organizations': 3`);
  }, 180_000);

  it('algorithms/README.md: both methods of the example image, from Python', async () => {
    for (const block of blocksOf('algorithms/README.md', 'python')) {
      const script = join(work, `algorithms-readme-${block.line}.py`);
      writeFileSync(script, substitute(block, mainJob()));
      const { out } = await python(script, { cwd: REPO, env: { FEDERA_PASSWORD: f.researcher.password } });
      expect(out).toContain(`{'sum': ${sumOf(hospitalA().ages)}.0, 'count': ${hospitalA().ages.length}}`);
      expect(out).toContain(`'average': ${average}, 'count': ${count}, 'organizations': 3`);
    }
  }, 180_000);
});

describe('docs/first-hour-researcher.md', () => {
  const researcherOf = (block: DocBlock): Substitution[] => [
    ['7601', String(f.port)],
    [block.lang === 'python' ? '"ada"' : "'ada'", JSON.stringify(f.researcher.username)],
    [block.lang === 'python' ? '"Change-me-1!"' : "'Change-me-1!'", JSON.stringify(f.researcher.password)],
    ['privkey_Hospital_A.pem', hospitalA().key],
  ];
  const expectPartials = (out: string, format: (sum: number, n: number) => string): void => {
    for (const o of f.orgs.slice(0, 2))
      expect(out).toContain(`${o.id} ${format(sumOf(o.ages), o.ages.length)}`);
  };

  it('the Python examples find the ids, then print each hospital’s sum and count', async () => {
    const [ids, task, ...more] = blocksOf('docs/first-hour-researcher.md', 'python');
    expect(more).toEqual([]);
    const dir = folder('fh-py');
    writeFileSync(join(dir, 'ids.py'), substitute(ids!, researcherOf(ids!).slice(0, 3)) /* no key file */);
    const found = await python('ids.py', { cwd: dir });
    expect(found.out).toContain(`my organization: ${hospitalA().id} Hospital A`);
    expect(found.out).toContain(
      `collaboration ${f.collaborationId} Age study encrypted: True organizations: [${f.orgs.map((o) => o.id).join(', ')}]`,
    );
    writeFileSync(join(dir, 'average.py'), substitute(task!, researcherOf(task!)));
    const { out } = await python('average.py', { cwd: dir });
    expectPartials(out, (sum, n) => `{'sum': ${sum}.0, 'count': ${n}}`);
  }, 180_000);

  it('the TypeScript example prints each hospital’s sum and count', async () => {
    const [block, ...more] = blocksOf('docs/first-hour-researcher.md', 'js');
    expect(more).toEqual([]);
    const dir = readerProject(folder('fh-js'));
    writeFileSync(join(dir, 'average.mjs'), substitute(block!, researcherOf(block!)));
    const { out } = await node('average.mjs', { cwd: dir });
    expectPartials(out, (sum, n) => `{ sum: ${sum}, count: ${n} }`);
  }, 180_000);
});

describe('docs/client-python.md, block after block in one session', () => {
  it('logs in as root, registers a hospital whose node then starts, and reads its decrypted result', async () => {
    const blocks = blocksOf('docs/client-python.md', 'python');
    const dir = folder('client-py');
    const spec = join(dir, 'blocks.json');
    const local: Substitution = ['Client("http://localhost", 5000', `Client("http://127.0.0.1", ${f.port}`];
    writeFileSync(
      spec,
      JSON.stringify({
        file: 'docs/client-python.md',
        blocks: blocks.map((b) => ({
          line: b.line,
          code: b.code.includes(local[0]) ? substitute(b, [local]) : b.code,
        })),
        answers: { 'Password of root: ': f.rootPassword, 'Password for alice: ': 'Alice-Pass-2024!' },
      }),
    );
    const ages = [41, 58, 33];
    let hospital: { id: number } | undefined;
    let seen = '';
    const { out, err } = await python(join(REPO, 'packages/cli/src/docs-examples/run-python-blocks.py'), {
      cwd: dir,
      args: [spec],
      onLine: async (line, answer) => {
        seen += `${line}\n`;
        if (!line.startsWith('@@block ')) return;
        const key = /API key of the node of Hospital D: (\S+)/.exec(seen)?.[1];
        if (key && !hospital) hospital = await f.startNode(key, ages);
        answer('next\n');
      },
    });
    expect(hospital, 'the example registers a node and prints its API key').toBeDefined();
    expect(out).toContain(
      `organization ${hospital!.id} -> {'sum': ${sumOf(ages)}.0, 'count': ${ages.length}}`,
    );
    expect(out).toContain(`[federa] Encrypting input for organization ${hospital!.id}`);
    expect(out).toContain('no such collaboration:');
    expect(`${out}${err}`).not.toContain(f.rootPassword);
    expect(out.match(/@@block \d+ done/g)).toHaveLength(blocks.length);
  }, 240_000);
});

describe('docs/client-typescript.md, its two scripts with a node started between them', () => {
  it('setup.mjs (and the snippets that continue it), then run-task.mjs prints the decrypted result', async () => {
    const [setup, runTask, ...snippets] = blocksOf('docs/client-typescript.md', 'js');
    const dir = readerProject(folder('client-ts'));
    const local: Substitution = [
      "host: 'http://localhost', port: 5000",
      `host: 'http://127.0.0.1', port: ${f.port}`,
    ];
    writeFileSync(
      join(dir, 'setup.mjs'),
      [substitute(setup!, [local]), ...snippets.map((s) => s.code)].join('\n'),
    );
    writeFileSync(join(dir, 'run-task.mjs'), substitute(runTask!, [local]));
    const env = { FEDERA_PASSWORD: f.rootPassword, BRAM_PASSWORD: 'Bram-Pass-2024!' };

    const made = await node('setup.mjs', { cwd: dir, env });
    const args = /run-task\.mjs arguments: (\d+) (\d+)/.exec(made.out);
    const key = /API key of the node of Hospital E: (\S+)/.exec(made.out)?.[1];
    expect(args, made.out).not.toBeNull();
    expect(key, made.out).toBeDefined();
    expect(made.out).toContain('no such collaboration:');
    const ages = [19, 64, 47, 52];
    const hospital = await f.startNode(key!, ages);
    expect(hospital.id).toBe(Number(args![2]));

    const { out } = await node('run-task.mjs', { cwd: dir, env, args: [args![1]!, args![2]!] });
    expect(out).toContain(`organization ${hospital.id} -> {"sum":${sumOf(ages)},"count":${ages.length}}`);
  }, 240_000);
});

describe('docs/client-r.md', () => {
  it('runs in the R suite, against its own server and two nodes in Docker', async () => {
    expect(blocksOf('docs/client-r.md', 'r').length).toBeGreaterThanOrEqual(8);
    const { out } = await run(process.execPath, ['clients/r/tests/run-tests.mjs', '--filter', 'docs'], {
      cwd: REPO,
      timeoutMs: 400_000,
    });
    expect(out).toMatch(/R client: [1-9]\d* passed, 0 failed/);
  }, 420_000);
});

describe('docs/algorithm-development.md: the algorithms of the page, built into images, compute the average', () => {
  /** Posts central_average with `image` to Hospital A as the researcher and returns the decrypted output. */
  const centralAverage = async (image: string): Promise<unknown> => {
    const researcher = new UserClient({ host: 'http://127.0.0.1', port: f.port, apiPath: '/api' });
    await researcher.authenticate(f.researcher.username, f.researcher.password);
    await researcher.setupEncryption(hospitalA().key);
    const task = await researcher.task.create({
      collaborationId: f.collaborationId,
      organizations: [hospitalA().id],
      name: 'the docs algorithm',
      image,
      input: { method: 'central_average', args: ['age'], kwargs: {}, master: true, output_format: 'json' },
    });
    const [result] = await researcher.waitForResults(task.id, { timeoutMs: 180_000 });
    return result?.result;
  };

  it('Python: average.py and main.py of the page, with the page’s Dockerfile', async () => {
    const [source, ...more] = blocksOf('docs/algorithm-development.md', 'python');
    expect(more).toEqual([]);
    const files = splitFiles(source!.code);
    expect(Object.keys(files)).toEqual(['average.py', 'main.py']);
    const dockerfile = docBlocks(REPO, 'docs/algorithm-development.md').find(
      (b) => b.lang === 'dockerfile' && b.line > source!.line,
    );
    const image = `federa-docs/${tag}-average-python:local`;
    buildDocImage(image, dockerfile!.code, ['clients/python/federa_algorithm_tools'], {
      'algorithms/average-python/average.py': files['average.py']!,
      'algorithms/average-python/main.py': files['main.py']!,
    });
    images.push(image);
    expect(await centralAverage(image)).toEqual({ average, count });
  }, 240_000);

  it('TypeScript: src/average.ts and src/main.ts of the page, compiled, in the example’s image recipe', async () => {
    const [source, ...more] = blocksOf('docs/algorithm-development.md', 'ts');
    expect(more).toEqual([]);
    const files = splitFiles(source!.code);
    expect(Object.keys(files)).toEqual(['src/average.ts', 'src/main.ts']);
    // An algorithm project beside the checkout's packages, compiled against the built @federa/algorithm-tools.
    const project = join(work, 'average-ts');
    mkdirSync(join(project, 'src'), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(project, name), text);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        extends: join(REPO, 'tsconfig.base.json'),
        compilerOptions: {
          rootDir: 'src',
          outDir: 'dist',
          composite: false,
          declaration: false,
          declarationMap: false,
        },
        include: ['src'],
      }),
    );
    await run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', project], {
      cwd: project,
    });
    // Bundled with the checkout's @federa/algorithm-tools, as scripts/build-algorithms.sh bundles the example.
    const bundle = join(project, 'dist', 'main.bundle.mjs');
    await run(
      join(REPO, 'node_modules/esbuild/bin/esbuild'),
      [
        join(project, 'dist', 'main.js'),
        '--bundle',
        '--platform=node',
        '--format=esm',
        '--log-level=warning',
        `--outfile=${bundle}`,
      ],
      { cwd: project, env: { NODE_PATH: join(REPO, 'node_modules') } },
    );
    const image = `federa-docs/${tag}-average-ts:local`;
    buildDocImage(image, readFileSync(join(REPO, 'algorithms/average-ts/Dockerfile'), 'utf8'), [], {
      'algorithms/average-ts/dist/main.bundle.mjs': readFileSync(bundle, 'utf8'),
    });
    images.push(image);
    expect(await centralAverage(image)).toEqual({ average, count });
  }, 240_000);
});

it('ran the blocks of every page and language that the inventory counts as run (run-here.ts)', () => {
  expect([...ran].sort()).toEqual(RUN_HERE.flatMap((r) => r.langs.map((l) => `${r.file} ${l}`)).sort());
});
