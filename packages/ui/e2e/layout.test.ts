/**
 * Every page of the web UI at a laptop's width (1440×900) and a phone's (390×844) in Debian's Chromium: no
 * horizontal scroll, no console error, no serious or critical accessibility violation (axe-core), and the top
 * bar folded into a menu on the phone. No Docker: a run's log (one long unwrapped line, as a sealed log is) is
 * reported through the node API. Screenshots of each page at both widths go to .data/ui-screenshots/layout/.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createFederation,
  type E2eServer,
  type Federation,
  ROOT_PASSWORD,
  startE2eServer,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '../../..');
const UI = join(ROOT, 'packages/ui');
const SHOTS = join(ROOT, '.data/ui-screenshots/layout');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--no-first-run',
];
const WIDTHS = [
  { name: 'wide', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
// A sealed log: its first line says what it is, then one line of base64 with no place to break.
const LONG_LOG = `sealed log (encrypted for the organization that created the task)\n${'QUJD'.repeat(2000)}`;

const tag = `lay${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
let fed: Federation;
let browser: Browser;
let taskId: number;

async function must<T>(r: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await r;
  if (status > 210) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
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

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  if (!existsSync(join(UI, 'dist/index.html')))
    execFileSync('npx', ['vite', 'build'], { cwd: UI, stdio: 'ignore' });
  server = await startE2eServer();
  fed = await createFederation(server, false, tag, ['a', 'b']);
  const task = await must(
    server.api<{ id: number }>('POST', '/task', {
      name: `crashing ${tag}`,
      image: 'example/crashes:1',
      collaboration_id: fed.collaborationId,
      description: '',
      organizations: fed.orgs.map((o) => ({
        id: o.id,
        input: Buffer.from(JSON.stringify({ method: 'average' })).toString('base64'),
      })),
    }),
    'task',
  );
  taskId = task.id;
  // The node of the first organization reports its run crashed, with the long log.
  const org = fed.orgs[0]!;
  const { access_token: token } = (await nodeCall('', 'POST', '/token/node', { api_key: org.apiKey })) as {
    access_token: string;
  };
  const runs = (await nodeCall(token, 'GET', `/result?task_id=${taskId}&node_id=${org.nodeId}`)) as {
    id: number;
  }[];
  const at = new Date().toISOString().replace('Z', '');
  await nodeCall(token, 'PATCH', `/result/${runs[0]!.id}`, { started_at: at });
  await nodeCall(token, 'PATCH', `/result/${runs[0]!.id}`, {
    log: LONG_LOG,
    finished_at: at,
    status: 'crashed',
  });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
}, 60_000);

/** What a user would notice: the page is wider than the screen, or the console reports an error. */
async function check(page: Page, errors: string[], name: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} scrolls sideways by ${overflow} px`).toBeLessThanOrEqual(0);
  expect(errors, `${name}: console errors`).toEqual([]);
  // Evaluated through the debugging protocol: the page's Content-Security-Policy forbids inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (c: Document, o: unknown) => Promise<unknown> } }).axe;
    const res = (await axe.run(document, { resultTypes: ['violations'] })) as {
      violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
    };
    return res.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `${name}: accessibility`).toEqual([]);
}

describe('every page at a laptop and a phone width', () => {
  for (const size of WIDTHS)
    it(`${size.width}×${size.height}: no sideways scroll, no console error, no serious accessibility fault`, async () => {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const errors: string[] = [];
      page.on('console', (m) => {
        // The browser's own report of the refused login below is not an error of the page.
        if (m.type() === 'error' && !/status of 401/.test(m.text())) errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      const shot = (name: string) =>
        page.screenshot({ path: join(SHOTS, `${name}-${size.width}.png`), fullPage: true });

      await page.goto(`${server.url}/`);
      await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
      await check(page, errors, 'login');
      await shot('login');
      await page.getByLabel('Username').fill('root');
      await page.getByLabel('Password', { exact: true }).fill(ROOT_PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await expect.poll(() => page.getByRole('heading', { name: 'Collaborations' }).isVisible()).toBe(true);

      const menu = page.getByRole('button', { name: 'Menu' });
      if (size.width < 800) {
        // The phone: the links are behind the menu, which opens and closes.
        expect(await page.getByRole('link', { name: 'Roles' }).isVisible()).toBe(false);
        await menu.click();
        await expect.poll(() => page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(true);
        await shot('menu');
        await page.getByRole('link', { name: 'Roles' }).click();
        await expect
          .poll(() => page.getByRole('heading', { name: 'Roles and rules' }).isVisible())
          .toBe(true);
        expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(false);
      } else {
        expect(await menu.isVisible()).toBe(false);
        expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(true);
      }

      const pages: [string, string, RegExp][] = [
        ['collaborations', '/collaborations', /^Collaborations$/],
        ['collaboration', `/collaboration/${fed.collaborationId}`, new RegExp(`collab-${tag}`)],
        ['tasks', '/tasks', /^Tasks$/],
        ['new-task', `/new-task?collaboration=${fed.collaborationId}`, /New task/],
        ['task', `/task/${taskId}`, new RegExp(`crashing ${tag}`)],
        ['organizations', '/organizations', /^Organizations$/],
        ['nodes', '/nodes', /^Nodes$/],
        ['users', '/users', /^Users$/],
        ['roles', '/roles', /^Roles and rules$/],
        ['health', '/health', /^Server health$/],
        ['account', '/account', /^My account$/],
      ];
      for (const [name, path, heading] of pages) {
        await page.goto(`${server.url}/#${path}`);
        await expect
          .poll(() => page.getByRole('heading', { level: 1, name: heading }).first().isVisible(), {
            message: `${name}: its heading`,
          })
          .toBe(true);
        await page.waitForLoadState('networkidle');
        if (name === 'task') {
          // The crashed run's log, opened: it wraps inside its box.
          await page.getByText(/^Log \(\d+ lines\)$/).click();
          await expect.poll(() => page.locator('pre.log').isVisible()).toBe(true);
        }
        await check(page, errors, name);
        await shot(name);
      }
      await context.close();
    }, 120_000);
});
