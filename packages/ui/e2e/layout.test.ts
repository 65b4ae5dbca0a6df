/**
 * Every page of the web UI at a laptop's width (1440×900) and a phone's (390×844) in Debian's Chromium: no
 * horizontal scroll, no console error, no serious or critical accessibility violation (axe-core), and the top
 * bar folded into a menu on the phone. No Docker: a run's log (one long unwrapped line, as a sealed log is) is
 * reported through the node API. Screenshots of each page at both widths go to .data/ui-screenshots/layout/.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  createFederation,
  type E2eServer,
  type Federation,
  ROOT_PASSWORD,
  startE2eServer,
} from '@federa/testing';
import { check, collectErrors, launch, must, ROOT, WIDTHS } from './kit.js';

const SHOTS = join(ROOT, '.data/ui-screenshots/layout');
// A sealed log: its first line says what it is, then one line of base64 with no place to break.
const LONG_LOG = `sealed log (encrypted for the organization that created the task)\n${'QUJD'.repeat(2000)}`;

const tag = `lay${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
let fed: Federation;
let browser: Browser;
let taskId: number;
let encryptedId: number;
/** Private key files: of the root user's organization, of the other one, and of no organization here. */
const keys = { own: '', other: '', stranger: '' };

function newKeyPair(): { privatePem: string; publicBase64: string } {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privatePem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicBase64: Buffer.from(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()).toString(
      'base64',
    ),
  };
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
  // The public keys a node uploads at its start, and an encrypted collaboration of both organizations.
  const dir = server.tempDir('keys');
  for (const [i, which] of (['own', 'other', 'stranger'] as const).entries()) {
    const pair = newKeyPair();
    keys[which] = join(dir, `${which}.pem`);
    writeFileSync(keys[which], pair.privatePem);
    const org = fed.orgs[i];
    if (org)
      await must(server.api('PATCH', `/organization/${org.id}`, { public_key: pair.publicBase64 }), 'key');
  }
  encryptedId = (
    await must(
      server.api<{ id: number }>('POST', '/collaboration', {
        name: `sealed-${tag}`,
        organization_ids: fed.orgs.map((o) => o.id),
        encrypted: true,
      }),
      'encrypted collaboration',
    )
  ).id;
  browser = await launch(SHOTS);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
}, 60_000);

describe('every page at a laptop and a phone width', () => {
  for (const size of WIDTHS)
    it(`${size.width}×${size.height}: no sideways scroll, no console error, no serious accessibility fault`, async () => {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      // The browser's own report of a refused request is not an error of the page.
      const errors = collectErrors(page, /status of 401/);
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
        ['node', `/node/${fed.orgs[1]!.nodeId}`, new RegExp(`^Node node-${tag}-1`)],
        ['users', '/users', /^Users$/],
        ['roles', '/roles', /^Roles and rules$/],
        ['health', '/health', /^Server health$/],
        ['audit', '/audit', /^Audit log$/],
        ['account', '/account', /^My account$/],
      ];
      const titles = new Set<string>();
      for (const [name, path, heading] of pages) {
        await page.goto(`${server.url}/#${path}`);
        await expect
          .poll(() => page.getByRole('heading', { level: 1, name: heading }).first().isVisible(), {
            message: `${name}: its heading`,
          })
          .toBe(true);
        await page.waitForLoadState('networkidle');
        if (name === 'node') {
          // This node never connected: its online history says so.
          await expect.poll(() => page.getByText(/^Never online: /).isVisible()).toBe(true);
        }
        if (name === 'task') {
          // The crashed run's log is open at once: it wraps inside its box.
          await expect.poll(() => page.locator('pre.log').isVisible()).toBe(true);
        }
        await check(page, errors, name);
        // Each page has its own title.
        expect(await page.title()).toMatch(/^(?!Federa$).+ · Federa$/);
        titles.add(await page.title());
        await shot(name);
      }
      expect(titles.size).toBe(pages.length);
      await context.close();
    }, 120_000);
});

describe("the organization's key in the browser", () => {
  it('a wrong key is refused with whose key it is; the right one is taken; after a reload the page asks again', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${server.url}/#/new-task?collaboration=${encryptedId}`);
    await page.getByLabel('Username').fill('root');
    await page.getByLabel('Password', { exact: true }).fill(ROOT_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    const file = page.getByLabel('Organization private key file');
    const otherName = `org-${tag}`;

    await file.setInputFiles(keys.other);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(
        `other.pem is the private key of ${otherName}, not of your organization root. Load root's key file.`,
      );
    await page.screenshot({ path: join(SHOTS, 'wrong-key-390.png'), fullPage: true });
    expect(await page.getByText('Key: other.pem').count()).toBe(0);

    await file.setInputFiles(keys.stranger);
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toMatch(
        /^stranger\.pem is not the key of your organization root, nor of any organization on this server/,
      );

    await file.setInputFiles(keys.own);
    await expect.poll(() => page.getByText('Key: own.pem').isVisible()).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);

    // Kept in the page's memory only: nothing of it in the browser's storage, and gone after a reload.
    const stored = (await page.evaluate(
      'JSON.stringify(Object.values(sessionStorage)) + JSON.stringify(Object.values(localStorage))',
    )) as string;
    expect(stored).not.toContain('PRIVATE KEY');
    expect(stored).not.toContain(readFileSync(keys.own, 'utf8').split('\n')[1]!);
    await page.reload();
    await expect.poll(() => page.getByText('Load organization key file…').isVisible()).toBe(true);
    expect(await page.getByText("Load your organization's private key file.").isVisible()).toBe(true);
    await context.close();
  }, 60_000);
});

describe('destructive actions ask first, and roles', () => {
  it('a rule change, a kill and a removal name what will happen and do nothing when cancelled', async () => {
    const role = await must(
      server.api<{ id: number }>('POST', '/role', {
        name: `auditors-${tag}`,
        description: 'custom',
        organization_id: fed.orgs[0]!.id,
        rules: [],
      }),
      'role',
    );
    const pending = await must(
      server.api<{ id: number }>('POST', '/task', {
        name: `waiting ${tag}`,
        image: 'example/waits:1',
        collaboration_id: fed.collaborationId,
        description: '',
        organizations: [{ id: fed.orgs[1]!.id, input: Buffer.from('{}').toString('base64') }],
      }),
      'task',
    );
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const asked: string[] = [];
    let answer = false;
    page.on('dialog', (d) => {
      asked.push(d.message());
      void (answer ? d.accept() : d.dismiss());
    });
    await page.goto(`${server.url}/#/roles`);
    await page.getByLabel('Username').fill('root');
    await page.getByLabel('Password', { exact: true }).fill(ROOT_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();

    // A default role is read-only.
    await page.getByRole('button', { name: 'Researcher', exact: true }).click();
    await expect
      .poll(() => page.getByText(/default role is the same for every organization/).isVisible())
      .toBe(true);
    await expect.poll(() => page.getByRole('checkbox').count()).toBeGreaterThan(0);
    expect(await page.getByRole('checkbox', { disabled: false }).count()).toBe(0);

    // A custom role: the change is named, cancelled does nothing, accepted is confirmed on the page.
    await page.getByRole('button', { name: `auditors-${tag}` }).click();
    const box = page.getByRole('checkbox').first();
    await expect.poll(() => box.isEnabled()).toBe(true);
    const label = (await box.getAttribute('aria-label'))!;
    await box.click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toMatch(
      new RegExp(`^Give the rule .+ to the role auditors-${tag}\\? Every user with this role gets it\\.$`),
    );
    expect(await box.isChecked()).toBe(false);
    expect(await must(server.api<unknown[]>('GET', `/role/${role.id}/rule`), 'rules')).toHaveLength(0);
    answer = true;
    await box.click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toMatch(new RegExp(`^The role auditors-${tag} now has `));
    await expect.poll(() => box.isChecked()).toBe(true);
    expect(label).toBeTruthy();
    await page.screenshot({ path: join(SHOTS, 'role-changed-1440.png'), fullPage: true });

    // People are never offered the internal roles.
    await page.goto(`${server.url}/#/users`);
    const options = page.getByLabel('Role').locator('option');
    await expect.poll(() => options.allTextContents()).toContain('Researcher');
    const roleOptions = await options.allTextContents();
    expect(roleOptions.filter((o) => /^(container|node)\b/i.test(o))).toEqual([]);

    // Kill: cancelled, the task keeps waiting; the question names the task and its sub-tasks.
    answer = false;
    await page.goto(`${server.url}/#/task/${pending.id}`);
    await page.getByRole('button', { name: 'Kill' }).click();
    await expect.poll(() => asked.length).toBe(3);
    expect(asked[2]).toBe(
      `Kill task #${pending.id} "waiting ${tag}" and every sub-task it started? Runs still going stop at every organization; this cannot be undone.`,
    );
    const task = await must(server.api<{ status: string }>('GET', `/task/${pending.id}`), 'task');
    expect(task.status).not.toMatch(/killed/);

    // Removing an organization from a collaboration: cancelled, it stays.
    await page.goto(`${server.url}/#/collaboration/${fed.collaborationId}`);
    const row = page.getByRole('row', { name: new RegExp(`^org-${tag} `) });
    await row.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => asked.length).toBe(4);
    expect(asked[3]).toMatch(new RegExp(`^Remove org-${tag} from this collaboration\\?`));
    expect(await row.isVisible()).toBe(true);

    // "Log out" ends the session on the server: its token is refused afterwards.
    const session = JSON.parse(
      (await page.evaluate("sessionStorage.getItem('federa.session')")) as string,
    ) as { accessToken: string };
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
    const after = await fetch(`${server.url}/api/user/1`, {
      headers: { authorization: `Bearer ${session.accessToken}` },
    });
    expect(after.status).toBe(401);
    await context.close();
  }, 60_000);
});
