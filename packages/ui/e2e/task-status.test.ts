/**
 * A task is never said to be running when it cannot run, and a failed run is never silent, at a laptop's width and
 * a phone's in Debian's Chromium. No Docker: one node is a test stand-in that connects and completes its runs
 * (FakeNode), the other stays offline until the test starts it; a crashed run is reported through the node API.
 * Screenshots go to .data/ui-screenshots/task-status/.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createFederation, type E2eServer, FakeNode, startE2eServer } from '@federa/testing';
import { check, collectErrors, launch, login, must, ROOT, WIDTHS } from './kit.js';

const SHOTS = join(ROOT, '.data/ui-screenshots/task-status');
const tag = `ts${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
let browser: Browser;
const fakes: FakeNode[] = [];

beforeAll(async () => {
  server = await startE2eServer();
  browser = await launch(SHOTS);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const f of fakes) await f.stop();
  await server?.close();
}, 60_000);

async function fakeNode(org: { nodeId: number; apiKey: string }): Promise<FakeNode> {
  const node = new FakeNode(server.url, org.nodeId, org.apiKey);
  fakes.push(node);
  await node.start();
  return node;
}

describe('a task whose node is offline', () => {
  for (const size of WIDTHS)
    it(`${size.width}×${size.height}: the form shows each node's status, the task page says what it waits for, and it runs when the node connects`, async () => {
      const t = `${tag}${size.name}`;
      const fed = await createFederation(server, false, t, ['a', 'b']);
      const [own, other] = fed.orgs;
      await fakeNode(own!);
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const errors = collectErrors(page);
      await page.goto(`${server.url}/#/new-task?collaboration=${fed.collaborationId}`);
      await login(page);

      // The form: the root organization's node is online, the other's offline.
      const ownBox = page.getByRole('checkbox', { name: /^root/ });
      const otherBox = page.getByRole('checkbox', { name: new RegExp(`^org-${t}`) });
      await expect
        .poll(() => page.locator('label.check', { has: ownBox }).textContent())
        .toBe('root node online');
      await expect
        .poll(() => page.locator('label.check', { has: otherBox }).textContent())
        .toBe(`org-${t} node offline`);
      await page.getByLabel('Image').fill('example/average:1');
      await page.getByLabel('Method', { exact: true }).fill('average');
      await page.getByLabel('Name', { exact: true }).fill(`waits ${t}`);
      await ownBox.check();
      expect(await page.getByText(/node is offline: the task waits/).count()).toBe(0);
      await otherBox.check();
      await expect
        .poll(() =>
          page.getByText("A chosen organization's node is offline: the task waits for it").isVisible(),
        )
        .toBe(true);
      await check(page, errors, 'new task');
      await page.screenshot({ path: join(SHOTS, `new-task-${size.width}.png`), fullPage: true });
      await page.getByRole('button', { name: 'Create task' }).click();

      // The task page: the server's warning, the node it waits for by name, and never "the task is running".
      await expect.poll(() => page.getByRole('heading', { level: 1, name: /waits/ }).isVisible()).toBe(true);
      const taskId = Number(/#\/task\/(\d+)/.exec(page.url())?.[1]);
      const waitingFor = `node-${t}-1 (org-${t})`;
      await expect
        .poll(() => page.getByText(/^The server warned when the task was created:/).textContent())
        .toBe(
          `The server warned when the task was created: Offline node(s): "node-${t}-1" of org-${t} ` +
            `(organization ${other!.id}). The task waits and runs when they connect. Ask their node admins to ` +
            'start them (vnode start).',
        );
      await expect
        .poll(() => page.getByText(/^Waiting for node-/).textContent())
        .toBe(
          `Waiting for ${waitingFor}: this node is offline. The task runs there when the node connects; ask ` +
            'its node administrator to start it (vnode start).',
        );
      // The own node's run completes at once; the other waits.
      await expect.poll(() => page.getByRole('cell', { name: 'completed', exact: true }).count()).toBe(1);
      await expect
        .poll(() => page.getByText(/^(No results|Some results are missing)\./).textContent())
        .toMatch(
          new RegExp(
            `^(No results|Some results are missing)\\. Waiting for ${waitingFor.replace(/[()]/g, '\\$&')}, which is offline: the task runs there when the node connects\\.$`,
          ),
        );
      expect(await page.getByText(/the task is running/).count()).toBe(0);
      await check(page, errors, 'task waiting');
      await page.screenshot({ path: join(SHOTS, `task-waiting-${size.width}.png`), fullPage: true });

      // The node connects: the page follows, the waiting notice goes, both runs complete.
      await fakeNode(other!);
      await expect.poll(() => page.getByText(/^Waiting for node-/).count(), { timeout: 20_000 }).toBe(0);
      await expect
        .poll(() => page.getByRole('cell', { name: 'completed', exact: true }).count(), { timeout: 20_000 })
        .toBe(2);
      const task = await must(server.api<{ status: string }>('GET', `/task/${taskId}`), 'task');
      expect(task.status).toBe('completed');
      await page.screenshot({ path: join(SHOTS, `task-ran-${size.width}.png`), fullPage: true });
      await context.close();
    }, 90_000);
});

describe('a crashed run', () => {
  it('is shown as crashed with its log open, at both widths, not as "no readable results"', async () => {
    const fed = await createFederation(server, false, `${tag}c`, ['a', 'b']);
    const org = fed.orgs[1]!;
    const task = await must(
      server.api<{ id: number }>('POST', '/task', {
        name: `crashes ${tag}`,
        image: 'example/crashes:1',
        collaboration_id: fed.collaborationId,
        description: '',
        organizations: [{ id: org.id, input: Buffer.from('{"method":"average"}').toString('base64') }],
      }),
      'task',
    );
    const node = async (method: string, path: string, body?: unknown, token = ''): Promise<unknown> => {
      const res = await fetch(`${server.url}/api${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return res.json();
    };
    const { access_token: token } = (await node('POST', '/token/node', { api_key: org.apiKey })) as {
      access_token: string;
    };
    const [run] = (await node('GET', `/result?task_id=${task.id}`, undefined, token)) as { id: number }[];
    const at = new Date().toISOString().replace('Z', '');
    await node('PATCH', `/result/${run!.id}`, { started_at: at }, token);
    await node(
      'PATCH',
      `/result/${run!.id}`,
      { log: 'Traceback (most recent call last):\nKeyError: age', finished_at: at, status: 'crashed' },
      token,
    );
    for (const size of WIDTHS) {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      const errors = collectErrors(page);
      await page.goto(`${server.url}/#/task/${task.id}`);
      await login(page);
      const said = `The run at org-${tag}c crashed: its log under Runs says why.`;
      await expect.poll(() => page.getByText(/^No results\./).textContent()).toBe(`No results. ${said}`);
      expect(await page.getByText(said, { exact: true }).isVisible()).toBe(true);
      expect(await page.getByText('No readable results.').count()).toBe(0);
      expect(await page.locator('pre.log').textContent()).toBe(
        'Traceback (most recent call last):\nKeyError: age',
      );
      expect(await page.locator('pre.log').isVisible()).toBe(true);
      await check(page, errors, 'crashed');
      await page.screenshot({ path: join(SHOTS, `task-crashed-${size.width}.png`), fullPage: true });
      await context.close();
    }
  }, 60_000);
});
