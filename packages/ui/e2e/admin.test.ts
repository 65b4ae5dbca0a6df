/**
 * Administration in the browser, at a laptop's width and a phone's: every form says what came of it, a duplicate
 * organization name is refused with the name, custom roles are created, renamed and deleted, users, collaborations
 * and tasks are edited or deleted after a question naming what will happen, the new-node form offers only the
 * collaboration's members, and a node has its own page. No Docker. Screenshots go to .data/ui-screenshots/admin/.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createFederation, type E2eServer, startE2eServer } from '@federa/testing';
import { check, collectErrors, launch, login, must, ROOT, WIDTHS } from './kit.js';

const SHOTS = join(ROOT, '.data/ui-screenshots/admin');
const tag = `ad${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
let server: E2eServer;
let browser: Browser;

beforeAll(async () => {
  server = await startE2eServer();
  browser = await launch(SHOTS);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
}, 60_000);

/** The text of the page's success message (a status that is not a progress line). */
const success = (page: Page) => page.locator('.notice.success').first().textContent();

describe('administration', () => {
  for (const size of WIDTHS)
    it(`${size.width}×${size.height}: forms say what came of them, destructive actions ask first`, async () => {
      const t = `${tag}${size.name}`;
      const fed = await createFederation(server, false, t, ['a', 'b']);
      // An organization in no collaboration: never offered for a node.
      await must(server.api('POST', '/organization', { name: `outside-${t}` }), 'organization');
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      // A refused request is reported by the browser itself; the page's own errors are what count.
      const errors = collectErrors(page, /status of 400/);
      const asked: string[] = [];
      let answer = false;
      page.on('dialog', (d) => {
        asked.push(d.message());
        void (answer ? d.accept() : d.dismiss());
      });
      const shot = (name: string) =>
        page.screenshot({ path: join(SHOTS, `${name}-${size.width}.png`), fullPage: true });

      // No mail server: the login page does not offer a recovery that cannot work.
      await page.goto(`${server.url}/`);
      await expect.poll(() => page.getByRole('button', { name: 'Log in' }).isVisible()).toBe(true);
      expect(await page.getByRole('link', { name: 'Forgot your password?' }).count()).toBe(0);
      await expect.poll(() => page.getByText(/This server sends no e-mail/).isVisible()).toBe(true);
      await login(page);
      await expect.poll(() => page.getByRole('heading', { name: 'Collaborations' }).isVisible()).toBe(true);

      // Organizations: created, a duplicate in another case refused naming it, edited.
      await page.goto(`${server.url}/#/organizations`);
      const form = page.getByRole('form', { name: 'New organization' });
      await form.getByLabel('Name').fill(`Hospital ${t}`);
      await form.getByRole('button', { name: 'Create organization' }).click();
      await expect.poll(() => success(page)).toBe(`Organization Hospital ${t} created.`);
      await form.getByLabel('Name').fill(`HOSPITAL ${t.toUpperCase()}`);
      await form.getByRole('button', { name: 'Create organization' }).click();
      await expect
        .poll(() => form.getByRole('alert').textContent())
        .toMatch(new RegExp(`^The organization name 'HOSPITAL ${t.toUpperCase()}' is already taken`));
      await shot('organization-duplicate');
      await check(page, errors, 'organizations');
      const orgs = await must(server.api<{ name: string }[]>('GET', '/organization'), 'organizations');
      expect(orgs.filter((o) => o.name.toLowerCase() === `hospital ${t}`.toLowerCase())).toHaveLength(1);
      await page.getByRole('button', { name: `Edit outside-${t}` }).click();
      const edit = page.getByRole('form', { name: `Edit organization outside-${t}` });
      await edit.getByLabel('Country').fill('NL');
      await edit.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => success(page)).toBe(`Organization outside-${t} saved.`);

      // A custom role: created, renamed, deleted only when the question is answered yes.
      await page.goto(`${server.url}/#/roles`);
      const newRole = page.getByRole('form', { name: 'New role' });
      await newRole.getByLabel('Role name').fill(`stewards-${t}`);
      await newRole.getByRole('button', { name: 'Create role' }).click();
      await expect
        .poll(() => success(page))
        .toBe(`Role stewards-${t} created, with no rules yet: open it to give it rules.`);
      await expect
        .poll(() => page.getByRole('heading', { name: `Rules of stewards-${t}` }).isVisible())
        .toBe(true);
      await page.getByRole('button', { name: 'Rename or describe' }).click();
      await page.getByLabel('Role name', { exact: true }).first().fill(`curators-${t}`);
      await page
        .getByRole('form', { name: `Edit role stewards-${t}` })
        .getByRole('button', { name: 'Save' })
        .click();
      await expect.poll(() => success(page)).toBe(`Role curators-${t} saved.`);
      await page.getByRole('button', { name: 'Delete role' }).click();
      await expect
        .poll(() => asked.at(-1))
        .toMatch(new RegExp(`^Delete the role curators-${t} of root\\? Every user`));
      await expect.poll(() => page.getByRole('button', { name: `curators-${t}` }).isVisible()).toBe(true);
      answer = true;
      await page.getByRole('button', { name: 'Delete role' }).click();
      await expect
        .poll(() => page.getByRole('status').first().textContent())
        .toBe(`Role curators-${t} deleted.`);
      await expect.poll(() => page.getByRole('button', { name: `curators-${t}` }).count()).toBe(0);
      await check(page, errors, 'roles');
      await shot('roles');

      // A user: created, details edited, deleted after the question.
      answer = false;
      await page.goto(`${server.url}/#/users`);
      const newUser = page.getByRole('form', { name: 'New user' });
      for (const [label, value] of [
        ['Username', `ulla-${t}`],
        ['First name', 'Ulla'],
        ['Last name', 'User'],
        ['E-mail', `ulla-${t}@example.org`],
        ['Password', 'Ulla-Password-1!'],
      ])
        await newUser.getByLabel(label!, { exact: true }).fill(value!);
      await newUser.getByRole('button', { name: 'Create user' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe(`User ulla-${t} created.`);
      const row = page.getByRole('row', { name: new RegExp(`^ulla-${t} `) });
      await row.getByRole('button', { name: 'Edit details' }).click();
      const details = page.getByRole('form', { name: `Edit user ulla-${t}` });
      await details.getByLabel('Last name').fill('Umbra');
      await details.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe(`User ulla-${t} saved.`);
      await expect.poll(() => row.getByRole('cell', { name: 'Ulla Umbra' }).isVisible()).toBe(true);
      await row.getByRole('button', { name: 'Delete' }).click();
      await expect
        .poll(() => asked.at(-1))
        .toBe(`Delete the user ulla-${t} (Ulla Umbra)? They can no longer log in. This cannot be undone.`);
      await expect.poll(() => row.isVisible()).toBe(true);
      answer = true;
      await row.getByRole('button', { name: 'Delete' }).click();
      await expect.poll(() => page.getByRole('status').first().textContent()).toBe(`User ulla-${t} deleted.`);
      await expect.poll(() => row.count()).toBe(0);

      // The new-node form offers the chosen collaboration's members only; a node has its own page.
      await page.goto(`${server.url}/#/nodes`);
      const newNode = page.getByRole('form', { name: 'New node' });
      await newNode.getByLabel('Collaboration').selectOption({ label: `collab-${t}` });
      const offered = await newNode.getByLabel('Organization').locator('option').allTextContents();
      expect(offered).toEqual(['My organization', 'root', `org-${t}`]);
      expect(offered).not.toContain(`outside-${t}`);
      await page.getByRole('link', { name: `node-${t}-1` }).click();
      await expect
        .poll(() => page.getByRole('heading', { level: 1, name: `Node node-${t}-1 offline` }).isVisible())
        .toBe(true);
      await expect.poll(() => page.getByText('never: it has not connected yet').isVisible()).toBe(true);
      await expect.poll(() => page.getByRole('link', { name: `collab-${t}` }).isVisible()).toBe(true);
      await check(page, errors, 'node');
      await shot('node');

      // A task, deleted after the question, leaves a word on the list it goes back to.
      const task = await must(
        server.api<{ id: number }>('POST', '/task', {
          name: `doomed ${t}`,
          image: 'example/average:1',
          collaboration_id: fed.collaborationId,
          organizations: [{ id: fed.orgs[1]!.id, input: Buffer.from('{}').toString('base64') }],
        }),
        'task',
      );
      answer = false;
      await page.goto(`${server.url}/#/task/${task.id}`);
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await expect
        .poll(() => asked.at(-1))
        .toBe(
          `Delete task #${task.id} "doomed ${t}" and its results? Runs still going are stopped first; its ` +
            'sub-tasks are kept. This cannot be undone.',
        );
      expect((await server.api('GET', `/task/${task.id}`)).status).toBe(200);
      answer = true;
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await expect.poll(() => success(page)).toBe(`Task #${task.id} "doomed ${t}" deleted.`);
      await expect.poll(() => page.getByRole('heading', { level: 1, name: 'Tasks' }).isVisible()).toBe(true);
      expect((await server.api('GET', `/task/${task.id}`)).status).toBe(404);

      // A collaboration: renamed, then deleted after the question.
      await page.goto(`${server.url}/#/collaboration/${fed.collaborationId}`);
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByLabel('Collaboration name').fill(`study-${t}`);
      await page
        .getByRole('form', { name: `Rename collab-${t}` })
        .getByRole('button', { name: 'Save' })
        .click();
      await expect.poll(() => success(page)).toBe(`Collaboration renamed to study-${t}.`);
      await expect
        .poll(() => page.getByRole('heading', { level: 1, name: `study-${t}` }).isVisible())
        .toBe(true);
      await check(page, errors, 'collaboration');
      answer = false;
      await page.getByRole('button', { name: 'Delete collaboration' }).click();
      await expect.poll(() => asked.at(-1)).toMatch(new RegExp(`^Delete the collaboration study-${t}\\?`));
      answer = true;
      await page.getByRole('button', { name: 'Delete collaboration' }).click();
      await expect.poll(() => success(page)).toBe(`Collaboration study-${t} deleted.`);
      await expect.poll(() => page.getByRole('link', { name: `study-${t}` }).count()).toBe(0);
      await shot('collaboration-deleted');

      // The audit log: what root just did, found by what and who; the chain verified intact.
      await page.goto(`${server.url}/#/audit`);
      const search = page.getByRole('form', { name: 'Search the audit log' });
      await search.getByLabel('Event starts with').fill('task.deleted');
      await search.getByLabel('Who').selectOption({ label: 'a user' });
      await search.getByLabel('Their id').fill('1');
      await search.getByRole('button', { name: 'Search' }).click();
      // The search's answer replaces the first listing (which has logins too): every row left is a deletion by
      // root, this one's among them.
      await expect.poll(() => page.getByRole('row', { name: /user\.login/ }).count()).toBe(0);
      const deleted = page.getByRole('row', { name: /task\.deleted/ });
      const found = await deleted.count();
      expect(await page.getByRole('row').count()).toBe(found + 1);
      const said = `${found} ${found === 1 ? 'entry matches' : 'entries match'}.`;
      await expect.poll(() => page.getByText(said, { exact: true }).isVisible()).toBe(true);
      const mine = page.getByRole('row', { name: new RegExp(`task\\.deleted .*"id":${task.id}\\}`) });
      await expect.poll(() => mine.getByRole('cell', { name: 'user root (1)' }).isVisible()).toBe(true);
      await page.getByRole('button', { name: 'Verify the chain' }).click();
      await expect
        .poll(() => page.locator('.notice.success').first().textContent())
        .toMatch(/^Intact\. OK: chain 'server': \d+ entries intact/);
      await check(page, errors, 'audit');
      await shot('audit');
      expect(errors).toEqual([]);
      await context.close();
    }, 120_000);
});
