/**
 * The web UI in a real browser (Debian's Chromium driven by playwright-core) against a real server with real
 * nodes running the example algorithm in Docker. One browser for the whole file. Screenshots of the main pages
 * go to .data/ui-screenshots/ (docs/ui.md).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RsaCryptor } from '@federa/common';
import {
  createFederation,
  type E2eServer,
  type Federation,
  removeNodeObjects,
  ROOT_PASSWORD,
  startE2eNode,
  startE2eServer,
  type StartedNode,
} from '@federa/testing';

const ROOT = join(import.meta.dirname, '../../..');
const UI = join(ROOT, 'packages/ui');
const SHOTS = join(ROOT, '.data/ui-screenshots');
const IMAGE = 'federa/average-python:local';
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const CSV_A = 'age\n30\n41\n50\n';
const CSV_B = 'age\n20\n25\n35\n45\n';
// (30 + 41 + 50 + 20 + 25 + 35 + 45) / 7
const EXPECTED_AVERAGE = 246 / 7;
const PASSWORD = 'Browser-Test-Pw-1!';

const tag = `ui${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
let fed: Federation;
const nodes: StartedNode[] = [];
let browser: Browser;
let keyFile: string;

async function must<T>(r: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await r;
  if (status > 210) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

async function roleId(name: string): Promise<number> {
  const roles = await must(
    server.api<{ id: number; name: string }[]>('GET', `/role?name=${encodeURIComponent(name)}`),
    'roles',
  );
  const role = roles.find((r) => r.name === name);
  if (!role) throw new Error(`no role ${name}`);
  return role.id;
}

async function userToken(username: string): Promise<string> {
  const res = await fetch(`${server.url}/api/token/user`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: PASSWORD }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  // The user says yes to every confirmation (layout.test.ts checks what they ask).
  page.on('dialog', (d) => void d.accept());
  return page;
}

async function login(page: Page, username: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // The suite serves what the build wrote; build it when this checkout has none yet.
  if (!existsSync(join(UI, 'dist/index.html')))
    execFileSync('npx', ['vite', 'build'], { cwd: UI, stdio: 'ignore' });
  execFileSync('docker', ['image', 'inspect', IMAGE], { stdio: 'ignore' });
  server = await startE2eServer();
  fed = await createFederation(server, true, tag, [CSV_A, CSV_B]);
  for (const [i, org] of fed.orgs.entries())
    nodes.push(await startE2eNode(server, org, `${tag}-n${i}`, true));
  keyFile = join(nodes[0]!.dataDir, 'private_key.pem');
  const [orgA, orgB] = fed.orgs;
  await must(
    server.api('POST', '/user', {
      username: `rosa-${tag}`,
      firstname: 'Rosa',
      lastname: 'Researcher',
      email: `rosa-${tag}@example.org`,
      password: PASSWORD,
      organization_id: orgA!.id,
      roles: [await roleId('Researcher')],
    }),
    'researcher',
  );
  await must(
    server.api('POST', '/user', {
      username: `otto-${tag}`,
      firstname: 'Otto',
      lastname: 'Admin',
      email: `otto-${tag}@example.org`,
      password: PASSWORD,
      organization_id: orgB!.id,
      roles: [await roleId('Organization Admin')],
    }),
    'organization admin',
  );
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  for (const n of nodes) await n.node.stop().catch(() => undefined);
  await server?.close();
  for (const n of nodes) removeNodeObjects(n.name);
}, 60_000);

describe('the web UI in Chromium', () => {
  it('a researcher creates an encrypted task in the browser, follows it live, reads the result', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/`);
    await shot(page, '01-login');
    await login(page, `rosa-${tag}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Collaborations' }).isVisible()).toBe(true);
    await page.getByRole('link', { name: `collab-${tag}` }).click();
    // Both nodes are online (their status follows socket events).
    const nodeCard = page.locator('.card').filter({ has: page.getByRole('heading', { name: 'Nodes' }) });
    await expect
      .poll(() => nodeCard.getByText('online', { exact: true }).count(), { timeout: 20_000 })
      .toBe(2);
    await shot(page, '02-collaboration');

    await page.getByRole('link', { name: 'New task' }).first().click();
    await page.getByLabel('Collaboration').selectOption({ label: `collab-${tag} (encrypted)` });
    await page.getByLabel('Organization private key file').setInputFiles(keyFile);
    await expect.poll(() => page.getByText('Key: private_key.pem').isVisible()).toBe(true);
    await page.getByRole('checkbox', { name: /^root/ }).check();
    await page.getByLabel('Image', { exact: true }).fill(IMAGE);
    await page.getByLabel('Method', { exact: true }).fill('central_average');
    await page.getByLabel('Arguments (JSON array)').fill('["age"]');
    await page.getByRole('checkbox', { name: /Master/ }).check();
    await page.getByLabel('Name', { exact: true }).fill('average age');
    await shot(page, '03-new-task');
    await page.getByRole('button', { name: 'Create task' }).click();

    await page.waitForURL(/#\/task\/\d+$/);
    const taskId = Number(/task\/(\d+)$/.exec(page.url())![1]);
    // Followed live: the page turns to "completed" by itself.
    await expect
      .poll(() => page.getByRole('heading', { name: /Task #\d+: average age completed/ }).isVisible(), {
        timeout: 150_000,
        interval: 500,
      })
      .toBe(true);
    const shown = await page.locator('table').last().locator('tbody td.num').first().textContent();
    expect(Number(shown)).toBeCloseTo(EXPECTED_AVERAGE, 3);
    // The node encrypted the output; the browser decrypted it: the server holds only ciphertext.
    const stored = await must(
      server.api<{ result: string }[]>('GET', `/result?task_id=${taskId}`),
      'results',
    );
    const ciphertext = stored[0]!.result;
    expect(ciphertext.split('$')).toHaveLength(3);
    const plain = new RsaCryptor(readFileSync(keyFile, 'utf8')).decryptStringToBytes(ciphertext).toString();
    expect(JSON.parse(plain.slice('json.'.length)).average).toBeCloseTo(EXPECTED_AVERAGE, 9);
    // An average, a count and a number of organizations share no scale: the table shows them, no chart draws
    // them as bars. The tree: the master's one sub-task, run at both organizations.
    expect(await page.getByRole('columnheader', { name: 'average' }).isVisible()).toBe(true);
    expect(await page.locator('figure.chart').count()).toBe(0);
    expect(await page.locator('.tree ul li').count()).toBe(1);
    await shot(page, '04-task');

    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csvText = readFileSync((await csv.path())!, 'utf8');
    expect(csvText.split('\n')[0]).toBe('source,average,count,organizations,value');

    // Re-run with changes: the form is filled from the task (its input decrypted with the loaded key).
    await page.getByRole('button', { name: 'Re-run with changes' }).click();
    await expect.poll(() => page.getByLabel('Method', { exact: true }).inputValue()).toBe('central_average');
    expect(await page.getByLabel('Arguments (JSON array)').inputValue()).toBe('["age"]');
    expect(await page.getByRole('checkbox', { name: /Master/ }).isChecked()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /^root/ }).isChecked()).toBe(true);
    await page.getByLabel('Name', { exact: true }).fill('average age again');
    await page.getByRole('button', { name: 'Create task' }).click();
    await expect
      .poll(() => page.getByRole('heading', { name: /average age again completed/ }).isVisible(), {
        timeout: 150_000,
        interval: 500,
      })
      .toBe(true);

    // A deep link works in a fresh tab: log in, land on the task.
    const other = await newPage();
    await other.goto(`${server.url}/#/task/${taskId}`);
    await login(other, `rosa-${tag}`);
    await expect.poll(() => other.getByRole('heading', { name: /average age/ }).isVisible()).toBe(true);
    await other.context().close();

    await page.getByRole('link', { name: 'Tasks' }).first().click();
    await expect
      .poll(() => page.getByRole('link', { name: 'average age', exact: true }).isVisible())
      .toBe(true);
    await shot(page, '05-tasks');
    await page.context().close();
  }, 240_000);

  it('an admin sets up an organization, its node (API key shown once) and a user without code', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/#/organizations`);
    await login(page, 'root', ROOT_PASSWORD);
    await expect.poll(() => page.getByRole('heading', { name: 'Organizations' }).isVisible()).toBe(true);
    await page.getByLabel('Name').fill(`Clinic ${tag}`);
    await page.getByLabel('Country').fill('NL');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await expect
      .poll(() => page.getByRole('cell', { name: `Clinic ${tag}`, exact: true }).isVisible())
      .toBe(true);
    await shot(page, '06-organizations');

    await page.goto(`${server.url}/#/collaboration/${fed.collaborationId}`);
    await page.getByLabel('Add organization').selectOption({ label: `Clinic ${tag}` });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await expect
      .poll(() => page.getByRole('cell', { name: `Clinic ${tag}`, exact: true }).isVisible())
      .toBe(true);

    await page.goto(`${server.url}/#/nodes`);
    await page.getByLabel('Collaboration').selectOption({ label: `collab-${tag}` });
    await page.getByLabel('Organization').selectOption({ label: `Clinic ${tag}` });
    await page.getByLabel('Name (optional)').fill(`clinic-node-${tag}`);
    await page.getByRole('button', { name: 'Create node' }).click();
    const key = (await page.getByLabel('API key').textContent())!.trim();
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    await shot(page, '07-node-key');
    // The key is real: the node can log in with it.
    const token = await fetch(`${server.url}/api/token/node`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: key }),
    });
    expect(token.status).toBe(200);
    // Shown once: after "I have saved it" it is gone for good (the list never shows keys).
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.getByText(key).count()).toBe(0);
    await expect.poll(() => page.getByRole('cell', { name: `clinic-node-${tag}` }).isVisible()).toBe(true);

    await page.goto(`${server.url}/#/users`);
    await page.getByLabel('Username').fill(`carla-${tag}`);
    await page.getByLabel('First name').fill('Carla');
    await page.getByLabel('Last name').fill('Clinic');
    await page.getByLabel('E-mail').fill(`carla-${tag}@example.org`);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page
      .getByLabel('Organization', { exact: true })
      .last()
      .selectOption({ label: `Clinic ${tag}` });
    await page.getByLabel('Role').selectOption({ label: 'Researcher' });
    await page.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => page.getByText(`User carla-${tag} created.`).isVisible()).toBe(true);
    expect(await userToken(`carla-${tag}`)).toBeTruthy();
    await page.goto(`${server.url}/#/health`);
    await expect.poll(() => page.getByRole('cell', { name: 'Database' }).isVisible()).toBe(true);
    await shot(page, '08-health');
    await page.context().close();
  }, 120_000);

  it("a refused action shows the API's reason", async () => {
    const page = await newPage();
    await page.goto(`${server.url}/#/users`);
    await login(page, `otto-${tag}`);
    await expect.poll(() => page.getByRole('heading', { name: 'Users' }).isVisible()).toBe(true);
    const row = page.getByRole('row', { name: new RegExp(`otto-${tag}`) });
    await row.getByRole('button', { name: 'Edit roles' }).click();
    await row.getByRole('checkbox', { name: /^Root/ }).check();
    await row.getByRole('button', { name: 'Save roles' }).click();
    // The same request through the API, to know its exact answer.
    const me = (
      await must(server.api<{ id: number; username: string }[]>('GET', `/user?username=otto-${tag}`), 'user')
    )[0]!;
    const refused = await fetch(`${server.url}/api/user/${me.id}`, {
      method: 'PATCH',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await userToken(`otto-${tag}`)}`,
      },
      body: JSON.stringify({ roles: [await roleId('Organization Admin'), await roleId('Root')] }),
    });
    expect(refused.status).toBe(401);
    const msg = ((await refused.json()) as { msg: string }).msg;
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(msg);
    await shot(page, '09-refused');

    // The account page: roles and rules, and a refused password change with the API's reason.
    await page.getByRole('link', { name: `otto-${tag}` }).click();
    await expect.poll(() => page.getByRole('heading', { name: /My rules \(\d+\)/ }).isVisible()).toBe(true);
    // The roles come with their own request, after the heading (which counts the rules of the login).
    await expect.poll(() => page.getByText('Organization Admin').count()).toBeGreaterThan(0);
    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password').fill('Another-Password-2!');
    await page.getByRole('button', { name: 'Change password' }).click();
    const wrong = await fetch(`${server.url}/api/password/change`, {
      method: 'PATCH',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await userToken(`otto-${tag}`)}`,
      },
      body: JSON.stringify({ current_password: 'not-my-password', new_password: 'Another-Password-2!' }),
    });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    const wrongMsg = ((await wrong.json()) as { msg: string }).msg;
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(wrongMsg);
    await shot(page, '10-account');

    // A wrong password shows the API's message too.
    const fresh = await newPage();
    await fresh.goto(`${server.url}/`);
    await login(fresh, `otto-${tag}`, 'wrong-password');
    await expect.poll(() => fresh.getByRole('alert').textContent()).toMatch(/password|credentials|invalid/i);
    await fresh.context().close();
    await page.context().close();
  }, 90_000);
});
