/**
 * The algorithm store in Debian's Chromium, at a laptop's width (1440×900) and a phone's (390×844): a store
 * manager assigns a reviewer, the reviewer approves with a comment (a rejection without one is refused at the
 * field), and a researcher creates a task from the form the store generates (a wrong argument is named with the
 * type expected). Every store page: no horizontal scroll, no console error, no serious or critical accessibility
 * violation (axe-core). No Docker: the task's runs stay pending. Screenshots go to
 * .data/ui-screenshots/layout/store-*.png.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createFederation,
  type E2eServer,
  type Federation,
  ROOT_PASSWORD,
  startE2eServer,
} from '@federa/testing';
import { description } from './store-description.js';
import { ROOT, WIDTHS, check as checkNow, collectErrors, launch, login, must } from './kit.js';

const SHOTS = join(ROOT, '.data/ui-screenshots/layout');
const PASSWORD = 'Store-Test-Pw-1!';
const DIGEST = `sha256:${'ab12'.repeat(16)}`;

const tag = `st${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
let fed: Federation;
let browser: Browser;
let rootToken = '';

async function storeCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}/store/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${rootToken}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status > 210) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function nodeCall(token: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${server.url}/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status > 210) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function newUser(name: string, orgId: number, role: string): Promise<string> {
  const roles = await must(server.api<{ id: number; name: string }[]>('GET', '/role'), 'roles');
  const username = `${name}-${tag}`;
  await must(
    server.api('POST', '/user', {
      username,
      firstname: name,
      lastname: 'Store',
      email: `${username}@example.org`,
      password: PASSWORD,
      organization_id: orgId,
      roles: [roles.find((r) => r.name === role)!.id],
    }),
    name,
  );
  return username;
}

let researcher = '';
let reviewer = '';
let approvedId = 0;

beforeAll(async () => {
  browser = await launch(SHOTS);
  server = await startE2eServer();
  fed = await createFederation(server, false, tag, ['a', 'b']);
  const login = await fetch(`${server.url}/api/token/user`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: ROOT_PASSWORD }),
  });
  rootToken = ((await login.json()) as { access_token: string }).access_token;
  researcher = await newUser('rosa', fed.orgs[0]!.id, 'Researcher');
  reviewer = await newUser('vera', fed.orgs[1]!.id, 'Researcher');
  const vera = await storeCall<{ id: number }>('POST', '/user', { username: reviewer, roles: ['reviewer'] });
  // One reviewer from one organization is enough here (the default asks two of each).
  await storeCall('PATCH', '/policy', { min_reviewers: 1, min_reviewing_organizations: 1 });
  // An approved version for the researcher; versions to review are submitted by each test.
  const a = await storeCall<{ id: number }>(
    'POST',
    '/algorithm',
    description(`example/summary:1@${DIGEST}`, `summary-${tag}`),
  );
  const review = await storeCall<{ id: number }>('POST', '/review', {
    algorithm_id: a.id,
    reviewer_id: vera.id,
  });
  const veraToken = (
    (await (
      await fetch(`${server.url}/api/token/user`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: reviewer, password: PASSWORD }),
      })
    ).json()) as { access_token: string }
  ).access_token;
  const approved = await fetch(`${server.url}/store/api/review/${review.id}/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${veraToken}` },
    body: '{}',
  });
  expect(approved.status).toBe(200);
  approvedId = a.id;
  // What the node of the second organization shared when it connected: the column names of its database.
  await server.ctx.dbh.db
    .insertInto('node_config')
    .values(['age', 'bmi'].map((value) => ({ node_id: fed.orgs[1]!.nodeId, key: 'columns.default', value })))
    .execute();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
}, 60_000);

/** {@link checkNow} once the page has stopped loading (store pages read the catalogue after they draw). */
async function check(page: Page, errors: string[], name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  await checkNow(page, errors, name);
}

async function open(width: number, height: number, username: string, password = PASSWORD) {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  // A refusal the page shows to the user (a 400 for a wrong argument) is logged by the browser, not the page.
  const errors = collectErrors(page, /status of 400/);
  await page.goto(`${server.url}/`);
  await login(page, username, password);
  await expect.poll(() => page.getByRole('heading', { name: 'Collaborations' }).isVisible()).toBe(true);
  const shot = (name: string) =>
    page.screenshot({ path: join(SHOTS, `store-${name}-${width}.png`), fullPage: true });
  return { context, page, errors, shot };
}

for (const size of WIDTHS)
  describe(`the store at ${size.width}×${size.height}`, () => {
    it('a store manager assigns a reviewer, who approves with a comment', async () => {
      const name = `summary-${tag}-${size.width}`;
      const submitted = await storeCall<{ id: number }>(
        'POST',
        '/algorithm',
        // Another image repository: approving it must not replace the researcher's algorithm.
        description(`example/review-${size.width}:1@${DIGEST}`, name),
      );
      const manager = await open(size.width, size.height, 'root', ROOT_PASSWORD);
      await manager.page.goto(`${server.url}/#/store/reviews`);
      const card = manager.page.getByRole('article', {
        name: `Summary ${name} (#${submitted.id}) in review`,
      });
      await card
        .getByLabel('Reviewer', { exact: true })
        .selectOption({ label: `${reviewer} (organization ${fed.orgs[1]!.id})` });
      await card.getByRole('button', { name: 'Assign' }).click();
      await expect
        .poll(() => card.getByRole('status').textContent())
        .toBe(`${reviewer} now reviews Summary ${name}.`);
      await expect.poll(() => card.getByText(`Reviewing now: ${reviewer}.`).isVisible()).toBe(true);
      await check(manager.page, manager.errors, 'reviews (manager)');
      await manager.shot('reviews-manager');
      await manager.context.close();

      const { context, page, errors, shot } = await open(size.width, size.height, reviewer);
      await page.goto(`${server.url}/#/store/reviews`);
      const review = page.getByRole('article', { name: `Review of Summary ${name} (#${submitted.id})` });
      await expect.poll(() => review.isVisible()).toBe(true);
      expect(await page.title()).toBe('Store reviews · Federa');
      await check(page, errors, 'reviews');
      await shot('reviews');
      // A rejection without a comment is refused at the field, and nothing is sent.
      await review.getByRole('button', { name: 'Reject' }).click();
      await expect
        .poll(() => review.getByRole('alert').textContent())
        .toBe('A rejection needs a comment that tells the author why.');
      await review
        .getByLabel('Your comment (required to reject)')
        .fill('Read the code: it sums and counts only.');
      await review.getByRole('button', { name: 'Approve' }).click();
      await expect
        .poll(() => page.getByRole('status').textContent())
        .toBe(`Summary ${name} (#${submitted.id}): You approved it. The algorithm is now approved.`);
      await expect.poll(() => review.count()).toBe(0);

      // The algorithm page: approved, with the review and its comment in the table and the history.
      await page.goto(`${server.url}/#/store/algorithm/${submitted.id}`);
      await expect
        .poll(() => page.getByRole('heading', { level: 1, name: `Summary ${name}` }).isVisible())
        .toBe(true);
      await expect.poll(() => page.locator('h1 + .status').textContent()).toBe('approved');
      const row = page.getByRole('row', { name: new RegExp(`^${reviewer} approved Read the code`) });
      await expect.poll(() => row.isVisible()).toBe(true);
      const steps = await page
        .getByRole('list', { name: 'Steps of this version' })
        .getByRole('listitem')
        .allTextContents();
      expect(steps.map((s) => s.replace(/^[^:]+:\d\d:\d\d[^:]*: /, ''))).toEqual([
        'Submitted',
        `root assigned ${reviewer} to review`,
        `${reviewer} approved it: “Read the code: it sums and counts only.”`,
        'Approved: researchers can run it',
      ]);
      expect(await page.getByText(DIGEST).count()).toBeGreaterThan(0);
      await check(page, errors, 'algorithm');
      await shot('algorithm');
      await context.close();
    }, 90_000);

    it('a researcher creates a task from the generated form; a wrong argument names itself and its type', async () => {
      const { context, page, errors, shot } = await open(size.width, size.height, researcher);
      if (size.width < 800) await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('link', { name: 'Store' }).click();
      const card = page.getByRole('listitem').filter({
        has: page.getByRole('heading', { name: `Summary summary-${tag}`, exact: true }),
      });
      await expect.poll(() => card.isVisible()).toBe(true);
      await check(page, errors, 'catalogue');
      await shot('catalogue');
      await card.getByRole('link', { name: 'Create a task' }).click();
      await expect
        .poll(() =>
          page.getByRole('heading', { level: 1, name: `New task: Summary summary-${tag}` }).isVisible(),
        )
        .toBe(true);
      expect(page.url()).toContain(`#/store/new-task?algorithm=${approvedId}`);

      const form = page.getByRole('form', { name: 'New task' });
      await form.getByLabel('Collaboration').selectOption({ label: `collab-${tag}` });
      // A central function: one organization runs the central part.
      await form.getByRole('radio', { name: `org-${tag}` }).check();
      await expect.poll(() => form.getByText('Columns the nodes shared: age, bmi').isVisible()).toBe(true);
      await form.getByLabel('Column', { exact: true }).fill('age');
      await form.getByLabel('Minimum count').fill('4.5');
      // "trim" is asked only for a mean.
      expect(await form.getByLabel('trim').count()).toBe(0);
      await form.getByLabel('statistic').selectOption('mean');
      await expect.poll(() => form.getByLabel('trim').inputValue()).toBe('0.1');
      await form.getByLabel('statistic').selectOption('median');
      await expect.poll(() => form.getByLabel('trim').count()).toBe(0);
      await form.getByLabel('groups').fill('a, , b');
      await form.getByRole('checkbox', { name: `org-${tag}` }).check();
      await form.getByRole('button', { name: 'Create task' }).click();
      const minCount = form.getByLabel('Minimum count');
      await expect.poll(() => minCount.getAttribute('aria-invalid')).toBe('true');
      // The first wrong field has the focus.
      await expect
        .poll(() => page.evaluate('document.activeElement?.id'))
        .toBe(await minCount.getAttribute('id'));
      expect(await form.getByText(`'Minimum count' must be a whole number, not "4.5".`).count()).toBe(2);
      expect(await form.getByRole('alert').textContent()).toBe(
        `Check these arguments: 'Minimum count' must be a whole number, not "4.5". 'groups' is a list separated by commas, with no empty item.`,
      );
      await check(page, errors, 'new task (errors)');
      await shot('new-task-errors');

      await minCount.fill('5');
      await form.getByLabel('groups').fill('a, b');
      // Put right, the fields and the summary lose their messages.
      await expect.poll(() => form.getByRole('alert').count()).toBe(0);
      expect(await minCount.getAttribute('aria-invalid')).toBeNull();
      await form.getByLabel('options').fill('{"decimals": 2}');
      await form.getByLabel('Data: node database label').fill('cohort');
      await form.getByLabel('Name', { exact: true }).fill(`summary ${size.width}`);
      await shot('new-task');
      await form.getByRole('button', { name: 'Create task' }).click();
      await page.waitForURL(/#\/task\/\d+$/);
      const taskId = Number(/task\/(\d+)$/.exec(page.url())![1]);
      await expect
        .poll(() =>
          page.getByRole('heading', { level: 1, name: new RegExp(`summary ${size.width}`) }).isVisible(),
        )
        .toBe(true);

      // What the server holds: the approved digest, a master task at the one organization, the typed arguments.
      const task = await must(
        server.api<{ image: string; databases: { label: string }[] }>('GET', `/task/${taskId}`),
        'task',
      );
      expect(task.image).toBe(`example/summary:1@${DIGEST}`);
      expect(task.databases).toEqual([{ label: 'cohort' }]);
      const runs = await must(
        server.api<{ id: number; input: string; organization: number | { id: number } }[]>(
          'GET',
          `/result?task_id=${taskId}`,
        ),
        'runs',
      );
      expect(
        runs.map((r) => (typeof r.organization === 'number' ? r.organization : r.organization.id)),
      ).toEqual([fed.orgs[1]!.id]);
      const input = JSON.parse(
        Buffer.from(runs[0]!.input, 'base64')
          .toString()
          .replace(/^json\./, ''),
      ) as unknown;
      expect(input).toEqual({
        method: 'central_summary',
        args: [],
        kwargs: {
          column: 'age',
          min_count: 5,
          threshold: 0.5,
          statistic: 'median',
          drop_missing: false,
          groups: ['a', 'b'],
          organizations: [fed.orgs[1]!.id],
          options: { decimals: 2 },
        },
        master: true,
        output_format: 'json',
      });

      // The node reports the central part's output; the page draws it with the views the function declares.
      const org = fed.orgs[1]!;
      const { access_token: nodeToken } = (await nodeCall('', 'POST', '/token/node', {
        api_key: org.apiKey,
      })) as { access_token: string };
      const at = new Date().toISOString().replace('Z', '');
      await nodeCall(nodeToken, 'PATCH', `/result/${runs[0]!.id}`, { started_at: at });
      const output = {
        mean: 35.142857,
        count: 7,
        curve: [
          { day: 0, alive: 1 },
          { day: 30, alive: 0.9 },
          { day: 60, alive: 0.75 },
        ],
        bins: { '20-29': 2, '30-39': 2, '40-49': 2, '50-59': 1 },
      };
      await nodeCall(nodeToken, 'PATCH', `/result/${runs[0]!.id}`, {
        result: Buffer.from(`json.${JSON.stringify(output)}`).toString('base64'),
        finished_at: at,
        status: 'completed',
      });
      // The task page leads to the function's views of a store task's results.
      await page.goto(`${server.url}/#/task/${taskId}`);
      await page.getByRole('link', { name: 'Result views' }).click();
      await expect.poll(() => page.url()).toMatch(new RegExp(`#/store/results/${taskId}$`));
      const summary = page.getByRole('table', { name: 'Summary' });
      await expect.poll(() => summary.getByRole('row').allTextContents()).toEqual(['meancount', '35.14297']);
      expect(
        await page
          .getByRole('img', {
            name: /^Survival: share alive by day, day against value: alive: \(0, 1\) \(30, 0\.9\) \(60, 0\.75\)$/,
          })
          .count(),
      ).toBe(1);
      expect(await page.getByRole('img', { name: 'Ages: 20-29 2, 30-39 2, 40-49 2, 50-59 1' }).count()).toBe(
        1,
      );
      expect(await page.title()).toBe(`Results of task ${taskId} · Federa`);
      await check(page, errors, 'results');
      await shot('results');
      await context.close();
    }, 90_000);
  });
