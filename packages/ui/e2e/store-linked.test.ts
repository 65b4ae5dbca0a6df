/**
 * The catalogue across stores, and the views of a replaced version, in Debian's Chromium:
 * - a store in a process of its own (`vstore start`) linked to the collaboration lists its algorithms under its
 *   name beside the server's own; a linked store that cannot be reached is a plain message, the rest of the page
 *   works; a researcher creates a task from the linked store's algorithm, which runs its approved digest;
 * - a task that ran a version since replaced by a newer one still shows the views of the version it ran;
 * - with a collaboration chosen, the catalogue lists the stores it uses; a store linked only to a collaboration
 *   the researcher's organization is not in is never shown;
 * - a task from a linked store's algorithm shows its views; when that store answers garbage, another image, or
 *   nothing, the results page says why in a note and works on.
 * No Docker: the runs are reported by the test, playing the node. Screenshots go to
 * .data/ui-screenshots/layout/store-linked-*.png.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createFederation,
  freePort,
  until,
  type E2eServer,
  type Federation,
  startE2eServer,
} from '@federa/testing';
import { ROOT, WIDTHS, check, collectErrors, launch, login, must } from './kit.js';

const SHOTS = join(ROOT, '.data/ui-screenshots/layout');
const PASSWORD = 'Store-Linked-Pw-1!';
const digest = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;
const tag = `sl${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

let server: E2eServer;
let fed: Federation;
let browser: Browser;
let storeProcess: ChildProcess;
let storeDir: string;
let storeApi = '';
let researcher = '';
let researcherToken = '';
let reviewerToken = '';
let reviewerId = 0;
let consortiumAlgorithm = 0;

/**
 * A linked store that misbehaves on demand: `good` answers as a store does, `garbage` with text that is not
 * JSON, `odd views` with views that are not views, `other image` with another digest, `silent` never.
 */
type Mood = 'good' | 'garbage' | 'odd views' | 'other image' | 'silent';
let mood: Mood = 'good';
let hostile: Server;
let hostileUrl = '';
const hostileAlgorithm = (views: unknown[], n = 5) => ({
  id: 1,
  name: 'Moody count',
  display_name: 'Moody count',
  image: 'example/moody-count:1',
  digest: digest(n),
  status: 'approved',
  partitioning: 'horizontal',
  functions: [
    {
      name: 'central_count',
      display_name: 'Count',
      type: 'central',
      standalone: true,
      databases: [],
      arguments: [],
      ui_visualizations: views,
    },
  ],
});
const ROWS = { name: 'Moody rows', type: 'table', schema: { keys: ['count'] } };

/** An author's description: one central function with the views its result is drawn with. */
const description = (name: string, image: string, views: { name: string; keys: string[] }[]) => ({
  name,
  display_name: name,
  description: `Counts the rows at every organization (${name}).`,
  image,
  partitioning: 'horizontal',
  vantage6_version: '3.11',
  code_url: 'https://example.org/count',
  functions: [
    {
      name: 'central_count',
      display_name: 'Count',
      type: 'central',
      standalone: true,
      databases: [{ name: 'Data' }],
      arguments: [{ name: 'column', display_name: 'Column', type: 'column' }],
      ui_visualizations: views.map((v) => ({ name: v.name, type: 'table', schema: { keys: v.keys } })),
    },
  ],
});

async function call<T>(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status > 210) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

const token = async (username: string, password: string): Promise<string> =>
  (
    await call<{ access_token: string }>(server.url, 'POST', '/api/token/user', '', {
      username,
      password,
    })
  ).access_token;

/** Submits a description to the server's store and has the reviewer approve it; returns its id. */
async function approvedHere(body: unknown): Promise<number> {
  const store = `${server.url}/store/api`;
  const a = await call<{ id: number }>(store, 'POST', '/algorithm', server.rootToken, body);
  const review = await call<{ id: number }>(store, 'POST', '/review', server.rootToken, {
    algorithm_id: a.id,
    reviewer_id: reviewerId,
  });
  await call(store, 'POST', `/review/${review.id}/approve`, reviewerToken, {});
  return a.id;
}

/** Plays the node of the second organization: the run of `taskId` completes with `output`. */
async function complete(taskId: number, output: unknown): Promise<void> {
  const org = fed.orgs[1]!;
  const api = `${server.url}/api`;
  const { access_token: node } = await call<{ access_token: string }>(api, 'POST', '/token/node', '', {
    api_key: org.apiKey,
  });
  const runs = await call<{ id: number }[]>(api, 'GET', `/result?task_id=${taskId}`, server.rootToken);
  const at = new Date().toISOString().replace('Z', '');
  await call(api, 'PATCH', `/result/${runs[0]!.id}`, node, { started_at: at });
  await call(api, 'PATCH', `/result/${runs[0]!.id}`, node, {
    result: Buffer.from(`json.${JSON.stringify(output)}`).toString('base64'),
    finished_at: at,
    status: 'completed',
  });
}

beforeAll(async () => {
  browser = await launch(SHOTS);
  server = await startE2eServer();
  fed = await createFederation(server, false, tag, ['a', 'b']);
  const roles = await must(server.api<{ id: number; name: string }[]>('GET', '/role'), 'roles');
  const researcherRole = roles.find((r) => r.name === 'Researcher')!.id;
  for (const [name, org] of [
    ['rosa', fed.orgs[0]!.id],
    ['vera', fed.orgs[1]!.id],
  ] as const)
    await must(
      server.api('POST', '/user', {
        username: `${name}-${tag}`,
        firstname: name,
        lastname: 'Linked',
        email: `${name}-${tag}@example.org`,
        password: PASSWORD,
        organization_id: org,
        roles: [researcherRole],
      }),
      name,
    );
  researcher = `rosa-${tag}`;
  researcherToken = await token(researcher, PASSWORD);
  reviewerToken = await token(`vera-${tag}`, PASSWORD);
  const store = `${server.url}/store/api`;
  reviewerId = (
    await call<{ id: number }>(store, 'POST', '/user', server.rootToken, {
      username: `vera-${tag}`,
      roles: ['reviewer'],
    })
  ).id;
  await call(store, 'PATCH', '/policy', server.rootToken, {
    min_reviewers: 1,
    min_reviewing_organizations: 1,
  });

  // The consortium's store, a process of its own that trusts this server; root manages it.
  storeDir = mkdtempSync(join(tmpdir(), 'federa-store-linked-'));
  const port = await freePort();
  const serverApi = `${server.url}/api`;
  storeProcess = spawn(
    process.execPath,
    [
      join(ROOT, 'packages/server/bin/vstore.js'),
      'start',
      '--uri',
      `sqlite:///${join(storeDir, 'store.sqlite')}`,
      '--port',
      String(port),
      '--trusted-server',
      serverApi,
      '--manager',
      `${serverApi}#root`,
    ],
    { stdio: 'ignore' },
  );
  storeApi = `http://127.0.0.1:${port}/api`;
  await until(
    'the linked store to answer',
    () =>
      fetch(`${storeApi}/version`).then(
        (r) => r.ok,
        () => false,
      ),
    (ok) => ok,
    30_000,
  );
  const asRoot = { 'server-url': serverApi };
  const far = (method: string, path: string, body?: unknown) =>
    call<{ id: number }>(storeApi, method, path, server.rootToken, body, asRoot);
  await far('PATCH', '/policy', {
    min_reviewers: 1,
    min_reviewing_organizations: 1,
    assign_review_own_algorithm: true,
  });
  const shared = await far(
    'POST',
    '/algorithm',
    description('Consortium count', `example/consortium-count:1@${digest(7)}`, [
      { name: 'Rows', keys: ['count'] },
    ]),
  );
  consortiumAlgorithm = shared.id;
  const me = await far('GET', '/user/me');
  const review = await far('POST', '/review', { algorithm_id: shared.id, reviewer_id: me.id });
  await far('POST', `/review/${review.id}/approve`, {});
  await must(
    server.api('POST', '/algorithmstore', {
      name: 'Consortium store',
      url: storeApi,
      collaboration_id: fed.collaborationId,
    }),
    'link',
  );
  await must(
    server.api('POST', '/algorithmstore', { name: 'Closed store', url: 'http://127.0.0.1:9/api' }),
    'link',
  );

  // A collaboration of the researcher's organization alone, and one of the other organization alone with a
  // store linked to it: the researcher must never learn of that store.
  await must(
    server.api('POST', '/collaboration', {
      name: `own-${tag}`,
      organization_ids: [fed.orgs[0]!.id],
      encrypted: false,
    }),
    'collaboration',
  );
  const otherCollab = await must(
    server.api<{ id: number }>('POST', '/collaboration', {
      name: `other-${tag}`,
      organization_ids: [fed.orgs[1]!.id],
      encrypted: false,
    }),
    'collaboration',
  );
  await must(
    server.api('POST', '/algorithmstore', {
      name: 'Hidden store',
      url: 'http://127.0.0.1:9/api',
      collaboration_id: otherCollab.id,
    }),
    'link',
  );

  hostile = createServer((request, response) => {
    if (mood === 'silent') return; // the request stays open: the server's wait ends it
    response.setHeader('content-type', 'application/json');
    if (mood === 'garbage') return response.end('<html>not a store</html>');
    const algorithm =
      mood === 'odd views'
        ? hostileAlgorithm([null, { name: { b: 1 }, type: 'table' }, ROWS])
        : hostileAlgorithm([ROWS], mood === 'other image' ? 6 : 5);
    response.end(JSON.stringify(request.url?.includes('/algorithm/') ? algorithm : { data: [algorithm] }));
  });
  await new Promise<void>((done) => hostile.listen(0, '127.0.0.1', done));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/api`;
  await must(
    server.api('POST', '/algorithmstore', {
      name: 'Moody store',
      url: hostileUrl,
      collaboration_id: fed.collaborationId,
    }),
    'link',
  );
}, 120_000);

afterAll(async () => {
  hostile?.closeAllConnections();
  hostile?.close();
  await browser?.close();
  storeProcess?.kill('SIGTERM');
  await server?.close();
  if (storeDir) rmSync(storeDir, { recursive: true, force: true });
}, 60_000);

// The browser reports the 503 of the store that cannot be reached; the page shows it as a message.
const IGNORED = /status of 503/;
/** How long a page may take to show what it loads on this shared machine. */
const SHOWN = { timeout: 15_000 };

/** A laptop-wide page signed in as the researcher, opened at `route` of the web UI; its console errors collected. */
async function researcherAt(route: string) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors = collectErrors(page, IGNORED);
  await page.goto(`${server.url}/`);
  await login(page, researcher, PASSWORD);
  await page.goto(`${server.url}/#${route}`);
  return { context, page, errors };
}

describe('the catalogue across linked stores', () => {
  for (const size of WIDTHS)
    it(`lists each store under its name, and a closed one as a message (${size.width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const errors = collectErrors(page, IGNORED);
      await page.goto(`${server.url}/`);
      await login(page, researcher, PASSWORD);
      await page.goto(`${server.url}/#/store`);
      const consortium = page.getByRole('region', { name: 'Consortium store' });
      const card = consortium.getByRole('listitem').filter({ hasText: 'Consortium count' });
      await expect.poll(() => card.isVisible(), SHOWN).toBe(true);
      expect(await card.getByText('Functions: Count').count()).toBe(1);
      const closed = page.getByRole('region', { name: 'Closed store' });
      await expect
        .poll(() => closed.getByRole('status').textContent(), SHOWN)
        .toBe(
          "The algorithm store 'Closed store' (http://127.0.0.1:9/api) cannot be reached; its algorithms are not listed. Try again later, or ask the server's administrator whether the store moved.",
        );
      expect(await page.getByRole('heading', { level: 2, name: "This server's store" }).count()).toBe(1);
      await page.waitForLoadState('networkidle');
      await check(page, errors, 'catalogue with linked stores');
      await page.screenshot({
        path: join(SHOTS, `store-linked-catalogue-${size.width}.png`),
        fullPage: true,
      });
      await context.close();
    }, 60_000);

  it("creates a task from a linked store's algorithm: the task runs the digest that store approved", async () => {
    const { context, page, errors } = await researcherAt(`/store`);
    await page
      .getByRole('link', { name: 'Create a task with Consortium count from Consortium store' })
      .click();
    await expect
      .poll(
        () => page.getByRole('heading', { level: 1, name: 'New task: Consortium count' }).isVisible(),
        SHOWN,
      )
      .toBe(true);
    expect(await page.getByText('from the store Consortium store').count()).toBe(1);
    const form = page.getByRole('form', { name: 'New task' });
    await form.getByLabel('Collaboration').selectOption({ label: `collab-${tag}` });
    await form.getByRole('radio', { name: `org-${tag}` }).check();
    await form.getByLabel('Column', { exact: true }).fill('age');
    await check(page, errors, 'new task from a linked store');
    await form.getByRole('button', { name: 'Create task' }).click();
    await page.waitForURL(/#\/task\/\d+$/);
    const taskId = Number(/task\/(\d+)$/.exec(page.url())![1]);
    const task = await must(server.api<{ image: string }>('GET', `/task/${taskId}`), 'task');
    expect(task.image).toBe(`example/consortium-count:1@${digest(7)}`);
    await context.close();
  }, 60_000);
});

describe('a task of a replaced version', () => {
  it('still shows the views of the version it ran', async () => {
    const image = `example/count-${tag}`;
    const v1 = await approvedHere(
      description(`count-${tag}`, `${image}:1@${digest(1)}`, [
        { name: 'Rows, first version', keys: ['count'] },
      ]),
    );
    const input = Buffer.from(
      `json.${JSON.stringify({ method: 'central_count', args: [], kwargs: { column: 'age' } })}`,
    ).toString('base64');
    const created = await call<{ id: number }>(`${server.url}/api`, 'POST', '/task', researcherToken, {
      collaboration_id: fed.collaborationId,
      organizations: [{ id: fed.orgs[1]!.id, input }],
      name: 'count, first version',
      store_algorithm_id: v1,
    });
    await complete(created.id, { count: 42 });
    // The next version of the same image is approved: the first becomes `replaced`.
    const v2 = await approvedHere(
      description(`count-${tag}`, `${image}:2@${digest(2)}`, [{ name: 'Rows, second version', keys: ['n'] }]),
    );
    const old = await call<{ status: string; replaced_by_id: number }>(
      `${server.url}/store/api`,
      'GET',
      `/algorithm/${v1}`,
      server.rootToken,
    );
    expect(old).toMatchObject({ status: 'replaced', replaced_by_id: v2 });

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors = collectErrors(page);
    await page.goto(`${server.url}/`);
    await login(page, researcher, PASSWORD);
    await page.goto(`${server.url}/#/store/results/${created.id}`);
    const view = page.getByRole('table', { name: 'Rows, first version' });
    await expect.poll(() => view.getByRole('row').allTextContents(), SHOWN).toEqual(['count', '42']);
    expect(
      await page
        .getByText(
          'This task ran a version since replaced by a newer one: its views are those of the version it ran.',
        )
        .count(),
    ).toBe(1);
    expect(await page.getByRole('table', { name: 'Rows, second version' }).count()).toBe(0);
    await page.waitForLoadState('networkidle');
    await check(page, errors, 'results of a replaced version');
    await page.screenshot({ path: join(SHOTS, 'store-linked-replaced-results.png'), fullPage: true });
    await context.close();
  }, 60_000);
});

describe('the catalogue of one collaboration', () => {
  it('lists the stores the chosen collaboration uses, and never a store of a collaboration not ours', async () => {
    const { context, page, errors } = await researcherAt(`/store`);
    const region = (name: string) => page.getByRole('region', { name });
    await expect.poll(() => region('Consortium store').isVisible(), SHOWN).toBe(true);
    expect(await region('Closed store').count()).toBe(1);
    expect(await page.getByText('Hidden store').count()).toBe(0);

    const search = page.getByRole('search');
    await search.getByLabel('Collaboration').selectOption({ label: `own-${tag}` });
    await expect.poll(() => page.getByText(`The stores own-${tag} uses`).isVisible(), SHOWN).toBe(true);
    await expect.poll(() => region('Consortium store').count(), SHOWN).toBe(0);
    expect(await region('Moody store').count()).toBe(0);
    expect(await region('Closed store').count()).toBe(1);
    expect(await page.getByText('Hidden store').count()).toBe(0);

    await search.getByLabel('Collaboration').selectOption({ label: `collab-${tag}` });
    const card = region('Consortium store').getByRole('listitem').filter({ hasText: 'Consortium count' });
    await expect.poll(() => card.isVisible(), SHOWN).toBe(true);
    expect(await page.getByText('Hidden store').count()).toBe(0);
    // "Create a task" starts in the chosen collaboration.
    await card
      .getByRole('link', { name: 'Create a task with Consortium count from Consortium store' })
      .click();
    const form = page.getByRole('form', { name: 'New task' });
    await expect
      .poll(() => form.getByLabel('Collaboration').inputValue(), SHOWN)
      .toBe(String(fed.collaborationId));
    await page.goto(`${server.url}/#/store`);
    await page.waitForLoadState('networkidle');
    await check(page, errors, 'catalogue of one collaboration');
    await context.close();
  }, 60_000);
});

describe("the results of a linked store's algorithm", () => {
  /** A task of `storeName`'s algorithm, made by the researcher and completed with `{count: 42}`. */
  async function doneTask(storeName: string, algorithmId: number, kwargs: Record<string, unknown>) {
    const stores = await call<{ id: number; name: string }[]>(
      `${server.url}/api`,
      'GET',
      '/algorithmstore',
      researcherToken,
    );
    const input = Buffer.from(
      `json.${JSON.stringify({ method: 'central_count', args: [], kwargs })}`,
    ).toString('base64');
    const created = await call<{ id: number }>(`${server.url}/api`, 'POST', '/task', researcherToken, {
      collaboration_id: fed.collaborationId,
      organizations: [{ id: fed.orgs[1]!.id, input }],
      name: `from ${storeName}`,
      store_algorithm_id: algorithmId,
      algorithm_store_id: stores.find((s) => s.name === storeName)!.id,
    });
    await complete(created.id, { count: 42 });
    return created.id;
  }

  async function results(taskId: number) {
    const { context, page, errors } = await researcherAt(`/store/results/${taskId}`);
    return { context, page, errors };
  }

  it('draws the views the linked store declares', async () => {
    const taskId = await doneTask('Consortium store', consortiumAlgorithm, { column: 'age' });
    const { context, page, errors } = await results(taskId);
    const view = page.getByRole('table', { name: 'Rows' });
    await expect.poll(() => view.getByRole('row').allTextContents(), SHOWN).toEqual(['count', '42']);
    expect(
      await page.getByText('Consortium count, function Count, from the store Consortium store').count(),
    ).toBe(1);
    await page.waitForLoadState('networkidle');
    await check(page, errors, 'results of a linked store algorithm');
    await page.screenshot({ path: join(SHOTS, 'store-linked-results.png'), fullPage: true });
    await context.close();
  }, 60_000);

  it('says why in a note when the store answers garbage, another image or nothing, and draws what it can', async () => {
    mood = 'good';
    const taskId = await doneTask('Moody store', 1, {});
    const note = (page: Page) =>
      page.getByRole('status').filter({ hasText: 'shows its results as they are' });
    const cases: [Mood, string][] = [
      [
        'garbage',
        `The views of this task's algorithm cannot be read from the store Moody store now. The algorithm store 'Moody store' (${hostileUrl}) answered HTTP 200; the algorithm is not shown.`,
      ],
      [
        'other image',
        `The store Moody store now describes algorithm 1 as example/moody-count:1@${digest(6)}, not the image this task ran (example/moody-count:1@${digest(5)}), so its views are not drawn.`,
      ],
      [
        'silent',
        `The views of this task's algorithm cannot be read from the store Moody store now. The algorithm store 'Moody store' (${hostileUrl}) cannot be reached; the algorithm is not shown.`,
      ],
    ];
    try {
      for (const [now, said] of cases) {
        mood = now;
        const { context, page, errors } = await results(taskId);
        await expect.poll(() => note(page).textContent(), SHOWN).toContain(said);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
          `Results of task #${taskId}: from Moody store`,
        );
        expect(await note(page).getByRole('link', { name: 'task page' }).getAttribute('href')).toBe(
          `#/task/${taskId}`,
        );
        expect(await page.getByRole('table').count()).toBe(0);
        await check(page, errors, `results when the store answers ${now}`);
        await context.close();
      }
      mood = 'odd views';
      const { context, page, errors } = await results(taskId);
      const view = page.getByRole('table', { name: 'Moody rows' });
      await expect.poll(() => view.getByRole('row').allTextContents(), SHOWN).toEqual(['count', '42']);
      expect(
        await page
          .getByText(
            '2 views the store declares for this function cannot be read (each needs a name and a type), so they are not drawn.',
          )
          .count(),
      ).toBe(1);
      await check(page, errors, 'results with views that are not views');
      await context.close();
    } finally {
      mood = 'good';
    }
  }, 90_000);
});
